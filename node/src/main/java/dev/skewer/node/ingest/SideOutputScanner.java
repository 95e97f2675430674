package dev.skewer.node.ingest;

import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.stage.LandedRecords;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.header.Header;

/**
 * Finds the source offsets of one input partition that already have a record in the late or DLQ
 * topics, written after a checkpoint by the partition's previous owner. The new owner skips those
 * when it replays, so a failover does not duplicate side outputs.
 *
 * <p>Only the records appended since shortly before the checkpoint are read (the topics' timestamp
 * index finds where to start). Blocking: run it on a worker.
 */
final class SideOutputScanner {

  private SideOutputScanner() {}

  static Set<Long> routedOffsets(
      KafkaSettings kafka,
      List<String> sideTopics,
      String sourceTopic,
      int sourcePartition,
      long fromOffset,
      long sinceMs) {
    Set<Long> offsets = new HashSet<>();
    byte[] topicBytes = sourceTopic.getBytes(StandardCharsets.UTF_8);
    String partitionText = Integer.toString(sourcePartition);
    LandedRecords.since(
        kafka,
        "skewer-side-output-scan",
        sideTopics,
        sinceMs,
        r -> {
          Header topic = r.headers().lastHeader(SideOutputs.SOURCE_TOPIC_HEADER);
          Header partition = r.headers().lastHeader(SideOutputs.SOURCE_PARTITION_HEADER);
          Header offset = r.headers().lastHeader(SideOutputs.SOURCE_OFFSET_HEADER);
          if (topic == null || partition == null || offset == null) {
            return;
          }
          if (Arrays.equals(topic.value(), topicBytes)
              && partitionText.equals(new String(partition.value(), StandardCharsets.UTF_8))) {
            long o = Long.parseLong(new String(offset.value(), StandardCharsets.UTF_8));
            if (o >= fromOffset) {
              offsets.add(o);
            }
          }
        });
    return offsets;
  }
}

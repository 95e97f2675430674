package dev.skewer.node.ingest;

import dev.skewer.core.kafka.KafkaSettings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Finds the source offsets of one input partition that already have a record in the late or DLQ
 * topics, written after a checkpoint by the partition's previous owner. The new owner skips those
 * when it replays, so a failover does not duplicate side outputs.
 *
 * <p>Only the records appended since shortly before the checkpoint are read (the topics' timestamp
 * index finds where to start). Blocking: run it on a worker.
 */
final class SideOutputScanner {

  /** Records are searched from this long before the checkpoint was taken (clock skew). */
  static final Duration MARGIN = Duration.ofSeconds(60);

  private SideOutputScanner() {}

  static Set<Long> routedOffsets(
      KafkaSettings kafka,
      List<String> sideTopics,
      String sourceTopic,
      int sourcePartition,
      long fromOffset,
      long sinceMs) {
    Map<String, Object> config = new HashMap<>(kafka.consumerConfig("unused"));
    config.remove(ConsumerConfig.GROUP_ID_CONFIG);
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    config.put(ConsumerConfig.CLIENT_ID_CONFIG, "skewer-side-output-scan");
    Set<Long> offsets = new HashSet<>();
    byte[] topicBytes = sourceTopic.getBytes(StandardCharsets.UTF_8);
    String partitionText = Integer.toString(sourcePartition);
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      for (String topic : sideTopics) {
        consumer
            .partitionsFor(topic, Duration.ofSeconds(30))
            .forEach(p -> parts.add(new TopicPartition(topic, p.partition())));
      }
      consumer.assign(parts);
      Map<TopicPartition, Long> times = new HashMap<>();
      long startMs = Math.max(0, sinceMs - MARGIN.toMillis());
      parts.forEach(tp -> times.put(tp, startMs));
      Map<TopicPartition, OffsetAndTimestamp> starts =
          consumer.offsetsForTimes(times, Duration.ofSeconds(30));
      Map<TopicPartition, Long> ends = consumer.endOffsets(parts, Duration.ofSeconds(30));
      List<TopicPartition> toRead = new ArrayList<>();
      for (TopicPartition tp : parts) {
        OffsetAndTimestamp start = starts.get(tp);
        if (start != null && start.offset() < ends.get(tp)) {
          consumer.seek(tp, start.offset());
          toRead.add(tp);
        }
      }
      consumer.assign(toRead);
      while (toRead.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          Header topic = r.headers().lastHeader(SideOutputs.SOURCE_TOPIC_HEADER);
          Header partition = r.headers().lastHeader(SideOutputs.SOURCE_PARTITION_HEADER);
          Header offset = r.headers().lastHeader(SideOutputs.SOURCE_OFFSET_HEADER);
          if (topic == null || partition == null || offset == null) {
            continue;
          }
          if (Arrays.equals(topic.value(), topicBytes)
              && partitionText.equals(new String(partition.value(), StandardCharsets.UTF_8))) {
            long o = Long.parseLong(new String(offset.value(), StandardCharsets.UTF_8));
            if (o >= fromOffset) {
              offsets.add(o);
            }
          }
        }
      }
    }
    return offsets;
  }
}

package dev.skewer.stage;

import dev.skewer.core.kafka.KafkaSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * What an earlier owner of a partition already wrote: the records appended to some topics since
 * shortly before a checkpoint was taken (the topics' timestamp index finds where to start), read to
 * their current end. A task taken over after a rewind or failover looks them up so that its replay
 * does not write them again. Blocking: run it on a worker.
 */
public final class LandedRecords {

  /** Records are searched from this long before the checkpoint was taken (clock skew). */
  public static final Duration MARGIN = Duration.ofSeconds(60);

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private LandedRecords() {}

  /**
   * Hands every record of {@code topics} appended since {@code sinceMs} − {@link #MARGIN} to {@code
   * each}, reading with the stage's client properties (no group, nothing committed) as {@code
   * clientId}.
   */
  public static void since(
      KafkaSettings kafka,
      String clientId,
      List<String> topics,
      long sinceMs,
      Consumer<ConsumerRecord<byte[], byte[]>> each) {
    Map<String, Object> config = new HashMap<>(kafka.consumerConfig("unused"));
    config.remove(ConsumerConfig.GROUP_ID_CONFIG);
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    config.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      for (String topic : topics) {
        consumer
            .partitionsFor(topic, TIMEOUT)
            .forEach(p -> parts.add(new TopicPartition(topic, p.partition())));
      }
      consumer.assign(parts);
      Map<TopicPartition, Long> times = new HashMap<>();
      long startMs = Math.max(0, sinceMs - MARGIN.toMillis());
      parts.forEach(tp -> times.put(tp, startMs));
      Map<TopicPartition, OffsetAndTimestamp> starts = consumer.offsetsForTimes(times, TIMEOUT);
      Map<TopicPartition, Long> ends = consumer.endOffsets(parts, TIMEOUT);
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
        consumer.poll(Duration.ofMillis(200)).forEach(each);
      }
    }
  }
}

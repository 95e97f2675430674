package dev.skewer.testkit.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads a whole topic for assertions: every partition from the beginning up to the end offsets
 * captured when the call starts, with a plain consumer and no consumer group.
 *
 * <p>Reads {@code read_committed}: for a transactional topic the end is the last stable offset and
 * aborted records are skipped; for other topics that is the same as reading everything. Records
 * come partition by partition (ascending partition), each in offset order.
 */
public final class TopicReader {

  private TopicReader() {}

  /**
   * A group-less reader's configuration: byte arrays, no commits, {@code read_committed} (what
   * readers see).
   */
  static Properties readerProps(String bootstrap) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    return props;
  }

  /**
   * Every record of {@code topic} up to the end offsets at call time.
   *
   * @throws IllegalStateException if the topic does not exist or the end is not reached in time
   */
  public static List<ConsumerRecord<byte[], byte[]>> readAll(
      String bootstrap, String topic, Duration timeout) {
    Properties props = readerProps(bootstrap);
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
    props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 4 * 1024 * 1024);
    long deadline = System.nanoTime() + timeout.toNanos();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      var infos = consumer.partitionsFor(topic, timeout);
      if (infos == null || infos.isEmpty()) {
        throw new IllegalStateException("topic " + topic + " does not exist at " + bootstrap);
      }
      List<TopicPartition> partitions =
          infos.stream()
              .map(i -> new TopicPartition(topic, i.partition()))
              .sorted((a, b) -> Integer.compare(a.partition(), b.partition()))
              .collect(Collectors.toList());
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
      Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> byPartition =
          partitions.stream().collect(Collectors.toMap(p -> p, p -> new ArrayList<>()));
      while (!reachedEnd(consumer, partitions, end)) {
        long remainingMs = (deadline - System.nanoTime()) / 1_000_000;
        if (remainingMs <= 0) {
          throw new IllegalStateException(
              "reading " + topic + " did not reach end offsets " + end + " within " + timeout);
        }
        ConsumerRecords<byte[], byte[]> records =
            consumer.poll(Duration.ofMillis(Math.min(remainingMs, 500)));
        for (ConsumerRecord<byte[], byte[]> record : records) {
          TopicPartition tp = new TopicPartition(record.topic(), record.partition());
          if (record.offset() < end.get(tp)) {
            byPartition.get(tp).add(record);
          }
        }
      }
      List<ConsumerRecord<byte[], byte[]>> all = new ArrayList<>();
      partitions.forEach(p -> all.addAll(byPartition.get(p)));
      return all;
    }
  }

  private static boolean reachedEnd(
      KafkaConsumer<byte[], byte[]> consumer,
      List<TopicPartition> partitions,
      Map<TopicPartition, Long> end) {
    for (TopicPartition p : partitions) {
      if (consumer.position(p) < end.get(p)) {
        return false;
      }
    }
    return true;
  }
}

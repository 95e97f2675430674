package dev.skewer.loadgen.partition;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Utils;

/**
 * The partition Kafka's default producer partitioner picks for a keyed record: {@code
 * toPositive(murmur2(utf8(key))) % partitions}. The load producer sends to the partition computed
 * here, so the ground-truth reference knows each event's partition without asking Kafka.
 */
public final class EventPartitioner {

  private EventPartitioner() {}

  public static int partition(String recordKey, int partitions) {
    if (recordKey == null) {
      throw new IllegalArgumentException("recordKey must not be null");
    }
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be >= 1: " + partitions);
    }
    return Utils.toPositive(Utils.murmur2(recordKey.getBytes(StandardCharsets.UTF_8))) % partitions;
  }
}

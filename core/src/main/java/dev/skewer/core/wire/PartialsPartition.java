package dev.skewer.core.wire;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Utils;

/**
 * Which partition of the partials topic carries a key's Partials: {@code
 * toPositive(murmur2(utf8(key))) % partitions}, Kafka's default partitioner on the bare key. The
 * coordinator owning that partition merges the key, decides its fanout and scans its written
 * results; this is the one place the rule lives.
 */
public final class PartialsPartition {

  private PartialsPartition() {}

  /** The partials partition of a key's UTF-8 bytes. */
  public static int of(byte[] key, int partitions) {
    if (partitions <= 0) {
      throw new IllegalArgumentException("partitions must be positive, was " + partitions);
    }
    return Utils.toPositive(Utils.murmur2(key)) % partitions;
  }

  /** The partials partition of a key. */
  public static int of(String key, int partitions) {
    return of(key.getBytes(StandardCharsets.UTF_8), partitions);
  }
}

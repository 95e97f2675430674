package dev.skewer.core.hotkey;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The partition of a record under a {@link HotKeyTable}: the routing rule of {@link
 * SaltingPartitioner}, as a plain function so a load generator or a reference model computes
 * exactly the partition a producer would.
 *
 * <ul>
 *   <li>A record key {@code bare + separator + i} ({@code i} decimal, at most 9 digits) whose
 *       {@code bare} is in the table goes to {@code (partition(bare) + i) mod P}. A hot key written
 *       without a salt counts as salt 0.
 *   <li>Every other record key goes where Kafka's default partitioner sends it: {@code
 *       toPositive(murmur2(keyBytes)) % P}. So a cold key, salted-looking or not, is unchanged.
 * </ul>
 *
 * Hence salt 0 lands where the bare key lands, and the salts {@code 0..f-1} of a key with {@code f
 * <= P} land on {@code f} distinct partitions.
 *
 * <p>Immutable and thread-safe; {@link #partition(HotKeyTable, byte[], int)} allocates nothing.
 */
public final class SaltRouter {

  /** The default salt separator, as in {@code ad42#3}. */
  public static final String DEFAULT_SEPARATOR = "#";

  private static final int MAX_SALT_DIGITS = 9;

  private final String separator;
  private final byte[] separatorBytes;

  public SaltRouter(String separator) {
    if (separator == null
        || separator.isEmpty()
        || separator.chars().anyMatch(Character::isDigit)) {
      throw new IllegalArgumentException(
          "separator must be non-empty and contain no digit: '" + separator + "'");
    }
    this.separator = separator;
    this.separatorBytes = separator.getBytes(StandardCharsets.UTF_8);
  }

  /** A router with the {@link #DEFAULT_SEPARATOR}. */
  public static SaltRouter withDefaultSeparator() {
    return new SaltRouter(DEFAULT_SEPARATOR);
  }

  public String separator() {
    return separator;
  }

  /** Kafka's default partition of a keyed record. */
  public static int defaultPartition(byte[] keyBytes, int partitions) {
    requirePartitions(partitions);
    return Murmur2.partition(keyBytes, 0, keyBytes.length, partitions);
  }

  /** The partition of the serialized record key {@code keyBytes} (see the class contract). */
  public int partition(HotKeyTable table, byte[] keyBytes, int partitions) {
    requirePartitions(partitions);
    int n = keyBytes.length;
    if (!table.isEmpty()) {
      int digitsStart = n;
      while (digitsStart > 0 && n - digitsStart < MAX_SALT_DIGITS) {
        byte c = keyBytes[digitsStart - 1];
        if (c < '0' || c > '9') {
          break;
        }
        digitsStart--;
      }
      int bareLength = digitsStart - separatorBytes.length;
      if (digitsStart < n
          && bareLength > 0
          && Arrays.equals(
              keyBytes, bareLength, digitsStart, separatorBytes, 0, separatorBytes.length)) {
        int hash = Murmur2.hash(keyBytes, 0, bareLength);
        if (table.lookup(keyBytes, 0, bareLength, hash) != null) {
          int salt = 0;
          for (int i = digitsStart; i < n; i++) {
            salt = salt * 10 + (keyBytes[i] - '0');
          }
          return shifted(hash, salt, partitions);
        }
      }
      int hash = Murmur2.hash(keyBytes, 0, n);
      if (table.lookup(keyBytes, 0, n, hash) != null) {
        return shifted(hash, 0, partitions);
      }
      return (hash & 0x7fffffff) % partitions;
    }
    return Murmur2.partition(keyBytes, 0, n, partitions);
  }

  /**
   * The partition of bare key {@code key} written with salt {@code salt} under {@code table}: the
   * same as {@link #partition(HotKeyTable, byte[], int)} of {@link #recordKey}'s bytes.
   */
  public int partition(HotKeyTable table, String key, int salt, int partitions) {
    return partition(
        table, recordKey(table, key, salt).getBytes(StandardCharsets.UTF_8), partitions);
  }

  /**
   * The record key for bare key {@code key} and salt {@code salt}: {@code key + separator + salt}
   * when the key is hot, {@code key} itself when it is cold (cold records are never rewritten).
   */
  public String recordKey(HotKeyTable table, String key, int salt) {
    if (salt < 0) {
      throw new IllegalArgumentException("salt must be >= 0: " + salt);
    }
    return table.get(key) == null ? key : key + separator + salt;
  }

  private static int shifted(int hash, int salt, int partitions) {
    return (int) (((hash & 0x7fffffff) % partitions + (long) salt) % partitions);
  }

  private static void requirePartitions(int partitions) {
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be >= 1: " + partitions);
    }
  }
}

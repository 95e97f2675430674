package dev.skewer.core.hotkey;

/**
 * The 32-bit MurmurHash2 variant Kafka's default partitioner uses (seed {@code 0x9747b28c},
 * little-endian 4-byte blocks), over a range of an array so that a bare key inside a salted key's
 * bytes hashes without a copy. Equal to {@code org.apache.kafka.common.utils.Utils.murmur2} on the
 * same bytes (tested).
 */
final class Murmur2 {
  private static final int SEED = 0x9747b28c;
  private static final int M = 0x5bd1e995;
  private static final int R = 24;

  private Murmur2() {}

  static int hash(byte[] data, int offset, int length) {
    int h = SEED ^ length;
    int blocks = length >>> 2;
    int p = offset;
    for (int b = 0; b < blocks; b++, p += 4) {
      int k =
          (data[p] & 0xff)
              | ((data[p + 1] & 0xff) << 8)
              | ((data[p + 2] & 0xff) << 16)
              | ((data[p + 3] & 0xff) << 24);
      k *= M;
      k ^= k >>> R;
      k *= M;
      h *= M;
      h ^= k;
    }
    int tail = length & 3;
    if (tail == 3) {
      h ^= (data[p + 2] & 0xff) << 16;
    }
    if (tail >= 2) {
      h ^= (data[p + 1] & 0xff) << 8;
    }
    if (tail >= 1) {
      h ^= data[p] & 0xff;
      h *= M;
    }
    h ^= h >>> 13;
    h *= M;
    h ^= h >>> 15;
    return h;
  }

  /** Kafka's {@code Utils.toPositive(murmur2(bytes)) % partitions} over a range. */
  static int partition(byte[] data, int offset, int length, int partitions) {
    return (hash(data, offset, length) & 0x7fffffff) % partitions;
  }
}

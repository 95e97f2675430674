package dev.skewer.coordinator.query;

import java.util.ArrayList;
import java.util.List;

/**
 * A histogram of non-negative millisecond values with bounded relative error: values below 128 ms
 * have a bucket each; above, every power of two is cut into 64 buckets, so a bucket's upper bound
 * is at most 1/64 (1.6 %) above any value in it. {@link #valueAtQuantile} answers the upper bound
 * of the bucket holding the quantile: never below the exact quantile, at most 1.6 % above it.
 *
 * <p>Memory is fixed (3,712 counters, 30 KB). Thread-safe (synchronized).
 */
public final class LatenessHistogram {

  private static final int LINEAR = 128;
  private static final int SUB_BUCKETS = 64;
  private static final int SUB_BITS = 6;
  private static final int BUCKETS = LINEAR + (63 - 7) * SUB_BUCKETS;

  private final long[] counts = new long[BUCKETS];
  private long total;
  private long max = -1;

  /** Records one value; negative values count as 0. */
  public synchronized void record(long valueMs) {
    long v = Math.max(0, valueMs);
    counts[index(v)]++;
    total++;
    max = Math.max(max, v);
  }

  public synchronized long total() {
    return total;
  }

  /** The largest value recorded, or -1 when empty. */
  public synchronized long max() {
    return max;
  }

  /**
   * The smallest bucket upper bound {@code u} such that at least {@code quantile} of the values are
   * {@code <= u}; -1 when empty.
   *
   * @param quantile in (0, 1]
   */
  public synchronized long valueAtQuantile(double quantile) {
    if (!(quantile > 0 && quantile <= 1)) {
      throw new IllegalArgumentException("quantile must be in (0, 1], was " + quantile);
    }
    if (total == 0) {
      return -1;
    }
    long target = (long) Math.ceil(quantile * total - 1e-9);
    target = Math.max(1, Math.min(total, target));
    long cumulative = 0;
    for (int i = 0; i < BUCKETS; i++) {
      cumulative += counts[i];
      if (cumulative >= target) {
        return Math.min(upperBound(i), max);
      }
    }
    return max;
  }

  /** How many recorded values are {@code < thresholdMs} (exact at bucket bounds, else within). */
  public synchronized long countBelow(long thresholdMs) {
    long n = 0;
    for (int i = 0; i < BUCKETS; i++) {
      if (upperBound(i) < thresholdMs) {
        n += counts[i];
      }
    }
    return n;
  }

  /** The non-empty buckets, ascending: upper bound (inclusive) and count. */
  public synchronized List<Bucket> buckets() {
    List<Bucket> out = new ArrayList<>();
    for (int i = 0; i < BUCKETS; i++) {
      if (counts[i] > 0) {
        out.add(new Bucket(lowerBound(i), upperBound(i), counts[i]));
      }
    }
    return out;
  }

  /**
   * One bucket.
   *
   * @param fromMs smallest value it holds
   * @param toMs largest value it holds (inclusive)
   * @param count values recorded in it
   */
  public record Bucket(long fromMs, long toMs, long count) {}

  static int index(long v) {
    if (v < LINEAR) {
      return (int) v;
    }
    int exponent = 63 - Long.numberOfLeadingZeros(v); // >= 7
    int sub = (int) ((v >>> (exponent - SUB_BITS)) & (SUB_BUCKETS - 1));
    return LINEAR + (exponent - 7) * SUB_BUCKETS + sub;
  }

  static long lowerBound(int index) {
    if (index < LINEAR) {
      return index;
    }
    int exponent = 7 + (index - LINEAR) / SUB_BUCKETS;
    int sub = (index - LINEAR) % SUB_BUCKETS;
    return (long) (SUB_BUCKETS + sub) << (exponent - SUB_BITS);
  }

  static long upperBound(int index) {
    if (index < LINEAR) {
      return index;
    }
    int exponent = 7 + (index - LINEAR) / SUB_BUCKETS;
    int sub = (index - LINEAR) % SUB_BUCKETS;
    long next = (long) (SUB_BUCKETS + sub + 1) << (exponent - SUB_BITS);
    return next - 1;
  }
}

package dev.skewer.peers.flink;

import com.clearspring.analytics.hash.MurmurHash;
import com.clearspring.analytics.stream.cardinality.CardinalityMergeException;
import com.clearspring.analytics.stream.cardinality.HyperLogLogPlus;
import com.tdunning.math.stats.MergingDigest;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * W1's per (key, window) state on Flink: count, sum, min and max of value, distinct users with
 * stream-lib's HyperLogLog++ (p = 14, p' = 25) and value's quantiles with a t-digest (compression
 * 100): the libraries and parameters Skewer's sketches use.
 *
 * <p>Eager (the default), every (key, window) gets its {@code MergingDigest} with its first event
 * (~23 KB of buffers); lazy, it keeps up to {@value #LAZY_LIMIT} values as they are and makes the
 * digest only past that or when the window closes, as Skewer's quantile sketch does.
 */
public final class W1Accumulator {

  long count;
  double sum;
  double min = Double.POSITIVE_INFINITY;
  double max = Double.NEGATIVE_INFINITY;
  final HyperLogLogPlus users = new HyperLogLogPlus(14, 25);

  /** Values a lazy accumulator keeps before it makes its digest (Skewer's exact limit). */
  static final int LAZY_LIMIT = 128;

  private static final double COMPRESSION = 100;

  private MergingDigest values;
  private double[] pending;
  private int pendingCount;

  /** An eager accumulator. */
  public W1Accumulator() {
    this(false);
  }

  W1Accumulator(boolean lazyDigest) {
    if (lazyDigest) {
      pending = new double[8];
    } else {
      values = new MergingDigest(COMPRESSION);
    }
  }

  void add(W1Event e) {
    count++;
    sum += e.value;
    min = Math.min(min, e.value);
    max = Math.max(max, e.value);
    if (e.user != null) {
      byte[] utf8 = e.user.getBytes(StandardCharsets.UTF_8);
      users.offerHashed(MurmurHash.hash64(utf8, utf8.length)); // as Skewer's DistinctSketch
    }
    addValue(e.value);
  }

  private void addValue(double v) {
    if (values == null && pendingCount == LAZY_LIMIT) {
      values = digest();
      pending = null;
      pendingCount = 0;
    }
    if (values != null) {
      values.add(v);
      return;
    }
    if (pendingCount == pending.length) {
      pending = Arrays.copyOf(pending, Math.min(LAZY_LIMIT, pendingCount * 2));
    }
    pending[pendingCount++] = v;
  }

  /** The values' digest: the one held, or one made from the values kept. */
  MergingDigest digest() {
    if (values != null) {
      return values;
    }
    MergingDigest d = new MergingDigest(COMPRESSION);
    for (int i = 0; i < pendingCount; i++) {
      d.add(pending[i]);
    }
    return d;
  }

  void merge(W1Accumulator other) {
    count += other.count;
    sum += other.sum;
    min = Math.min(min, other.min);
    max = Math.max(max, other.max);
    try {
      users.addAll(other.users);
    } catch (CardinalityMergeException e) {
      throw new IllegalStateException("HyperLogLog++ sketches of one job must merge", e);
    }
    if (other.values != null) {
      if (values == null) {
        values = digest();
        pending = null;
        pendingCount = 0;
      }
      values.add(other.values);
    } else {
      for (int i = 0; i < other.pendingCount; i++) {
        addValue(other.pending[i]);
      }
    }
  }
}

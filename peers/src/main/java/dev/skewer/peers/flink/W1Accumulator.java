package dev.skewer.peers.flink;

import com.clearspring.analytics.hash.MurmurHash;
import com.clearspring.analytics.stream.cardinality.CardinalityMergeException;
import com.clearspring.analytics.stream.cardinality.HyperLogLogPlus;
import com.tdunning.math.stats.MergingDigest;
import java.nio.charset.StandardCharsets;

/**
 * W1's per (key, window) state on Flink: count, sum, min and max of value, distinct users with
 * stream-lib's HyperLogLog++ (p = 14, p' = 25) and value's quantiles with a t-digest (compression
 * 100): the libraries and parameters Skewer's sketches use.
 */
public final class W1Accumulator {

  long count;
  double sum;
  double min = Double.POSITIVE_INFINITY;
  double max = Double.NEGATIVE_INFINITY;
  final HyperLogLogPlus users = new HyperLogLogPlus(14, 25);
  final MergingDigest values = new MergingDigest(100);

  void add(W1Event e) {
    count++;
    sum += e.value;
    min = Math.min(min, e.value);
    max = Math.max(max, e.value);
    if (e.user != null) {
      byte[] utf8 = e.user.getBytes(StandardCharsets.UTF_8);
      users.offerHashed(MurmurHash.hash64(utf8, utf8.length)); // as Skewer's DistinctSketch
    }
    values.add(e.value);
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
    values.add(other.values);
  }
}

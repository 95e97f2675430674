package dev.skewer.sketches.quantile;

import com.tdunning.math.stats.Centroid;
import com.tdunning.math.stats.MergingDigest;
import com.tdunning.math.stats.ScaleFunction;
import dev.skewer.sketches.CodecException;
import dev.skewer.sketches.QuantileEstimate;
import dev.skewer.sketches.codec.ByteSink;
import dev.skewer.sketches.codec.ByteSource;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Quantiles of a stream of finite doubles: the first {@value #EXACT_LIMIT} values are kept exactly;
 * past that a t-digest ({@link MergingDigest}, Dunning and Ertl 2019) with the given compression
 * summarises them. Internal: use {@code Aggregate}.
 *
 * <p>Error: exact quantiles have rank error 0 (the lower nearest-rank value, {@code
 * sorted[ceil(q*n) - 1]}). A digest's estimate carries the rank error bound {@code
 * ScaleFunction.K_1.max(q, normalizer(compression, n))} = 2&pi;&radic;(q(1&minus;q))/compression:
 * the largest fraction of the weight t-digest lets one centroid near q hold; the interpolated value
 * lies between the means of the centroids bracketing rank qN, so (for centroids that do not
 * overlap) its true rank is off by at most that much. It is a bound, not a typical error: on 1M
 * log-normal values the measured rank error is ~10&times; smaller (see docs/sketches.md).
 *
 * <p>Scale function: K_1 (arcsine), not the library default K_2. Compressed to compression 100, K_2
 * keeps ~70 centroids concentrated in the tails and measured p50 rank errors up to 0.007 on 1M
 * log-normal values; K_1 keeps ~66 centroids spread evenly and measured &le; 0.0007 at every
 * quantile we check (p50, p90, p99, p99.9).
 *
 * <p>Representation and determinism: a digest is either <em>live</em> (a MergingDigest, ~25 KB of
 * buffers at compression 100, while values arrive) or <em>compact</em> (its compressed centroids:
 * 16 bytes each). Every observation (quantile, encode, copy, being merged into another sketch)
 * first compacts, so what is observed is always the compressed centroid list, and a sketch decoded
 * from an encoding continues exactly as the original does. Merging t-digests is not associative:
 * results of different merge orders agree only within the error bound.
 *
 * <p>Not thread-safe.
 */
public final class QuantileSketch {
  /** Values kept exactly before a digest is created. */
  public static final int EXACT_LIMIT = 128;

  private static final ScaleFunction SCALE = ScaleFunction.K_1;

  private final double compression;
  private long count;

  // exact mode: count <= EXACT_LIMIT
  private double[] values = new double[0];

  // digest mode, live
  private MergingDigest live;

  // digest mode, compact
  private double[] means;
  private long[] weights;
  private double min;
  private double max;

  public QuantileSketch(double compression) {
    this.compression = compression;
  }

  /** Largest number of centroids a MergingDigest of this compression can hold. */
  public static int maxCentroids(double compression) {
    double c = Math.max(10, compression);
    double fudge = c < 30 ? 30 : 10;
    return (int) Math.max(2 * c + fudge, Math.ceil(2 * c + fudge));
  }

  public long count() {
    return count;
  }

  public boolean isExact() {
    return count <= EXACT_LIMIT;
  }

  public void update(double x) {
    if (count < EXACT_LIMIT) {
      if (values.length == count) {
        values = Arrays.copyOf(values, (int) Math.min(EXACT_LIMIT, Math.max(8, count * 2)));
      }
      values[(int) count++] = x;
      return;
    }
    if (count == EXACT_LIMIT) {
      live = newDigest();
      addSorted(live, values, (int) count);
      values = null;
    } else {
      ensureLive();
    }
    live.add(x);
    count++;
  }

  private MergingDigest newDigest() {
    MergingDigest d = new MergingDigest(compression);
    d.setScaleFunction(SCALE);
    return d;
  }

  private static void addSorted(MergingDigest d, double[] vals, int n) {
    double[] sorted = Arrays.copyOf(vals, n);
    Arrays.sort(sorted);
    for (double v : sorted) {
      d.add(v);
    }
  }

  private void ensureLive() {
    if (live == null) {
      live = materialize();
      means = null;
      weights = null;
    }
  }

  /** Live to compact: compress once and keep only the centroids. */
  private void compact() {
    if (live == null) {
      return;
    }
    int n = live.centroids().size(); // compresses
    means = new double[n];
    weights = new long[n];
    int i = 0;
    for (Centroid c : live.centroids()) {
      means[i] = c.mean();
      weights[i] = c.count();
      i++;
    }
    min = live.getMin();
    max = live.getMax();
    live = null;
  }

  /** A MergingDigest holding exactly the compact centroids (t-digest's verbose layout). */
  private MergingDigest materialize() {
    int n = means.length;
    ByteBuffer buf = ByteBuffer.allocate(4 + 8 * 3 + 4 + 16 * n);
    buf.putInt(1); // MergingDigest.Encoding.VERBOSE_ENCODING
    buf.putDouble(min);
    buf.putDouble(max);
    buf.putDouble(compression);
    buf.putInt(n);
    for (int i = 0; i < n; i++) {
      buf.putDouble(weights[i]);
      buf.putDouble(means[i]);
    }
    buf.flip();
    MergingDigest d = MergingDigest.fromBytes(buf);
    d.setScaleFunction(SCALE);
    return d;
  }

  public void merge(QuantileSketch other) {
    if (other.compression != compression) {
      throw new IllegalArgumentException("cannot merge t-digests of different compression");
    }
    if (other.count == 0) {
      return;
    }
    if (other.isExact()) {
      if (isExact() && count + other.count <= EXACT_LIMIT) {
        double[] merged = Arrays.copyOf(values, (int) (count + other.count));
        System.arraycopy(other.values, 0, merged, (int) count, (int) other.count);
        values = merged;
        count += other.count;
        return;
      }
      if (isExact()) {
        double[] all = Arrays.copyOf(values, (int) (count + other.count));
        System.arraycopy(other.values, 0, all, (int) count, (int) other.count);
        live = newDigest();
        addSorted(live, all, all.length);
        values = null;
      } else {
        ensureLive();
        addSorted(live, other.values, (int) other.count);
      }
      count += other.count;
      return;
    }
    other.compact();
    if (isExact()) {
      double[] mine = values;
      int n = (int) count;
      live = other.materialize();
      means = null;
      weights = null;
      values = null;
      addSorted(live, mine, n);
    } else {
      ensureLive();
      for (int i = 0; i < other.means.length; i++) {
        live.add(other.means[i], (int) other.weights[i]);
      }
    }
    count += other.count;
  }

  public QuantileSketch copy() {
    QuantileSketch copy = new QuantileSketch(compression);
    copy.count = count;
    if (isExact()) {
      copy.values = Arrays.copyOf(values, (int) count);
    } else {
      compact();
      copy.values = null;
      copy.means = means.clone();
      copy.weights = weights.clone();
      copy.min = min;
      copy.max = max;
    }
    return copy;
  }

  /** The q-quantile; NaN with rank error 0 when empty. */
  public QuantileEstimate quantile(double q) {
    if (count == 0) {
      return new QuantileEstimate(q, Double.NaN, 0);
    }
    if (isExact()) {
      Arrays.sort(values, 0, (int) count);
      int rank = (int) Math.ceil(q * count) - 1;
      return new QuantileEstimate(q, values[Math.max(0, Math.min((int) count - 1, rank))], 0);
    }
    compact();
    double value = materialize().quantile(q);
    double bound = Math.min(1, SCALE.max(q, SCALE.normalizer(compression, count)));
    return new QuantileEstimate(q, value, bound);
  }

  /** Approximate heap footprint in bytes. */
  public long heapBytes() {
    long bytes = 64;
    if (values != null) {
      bytes += 16 + 8L * values.length;
    }
    if (live != null) {
      int size = maxCentroids(compression);
      bytes += 128 + 2 * (16 + 8L * size) + 2 * (16 + 8L * 5 * size) + 16 + 4L * 5 * size;
    }
    if (means != null) {
      bytes += 2 * (16 + 8L * means.length);
    }
    return bytes;
  }

  /**
   * Writes: u8 mode; exact (0): varint n, n &times; f64 sorted ascending; digest (1): f64 min, f64
   * max, varint c, c &times; (f64 mean, varint weight) in centroid order.
   */
  public void encodeTo(ByteSink out) {
    if (isExact()) {
      out.writeByte(0);
      Arrays.sort(values, 0, (int) count);
      out.writeVarLong(count);
      for (int i = 0; i < count; i++) {
        out.writeDouble(values[i]);
      }
      return;
    }
    compact();
    out.writeByte(1);
    out.writeDouble(min);
    out.writeDouble(max);
    out.writeVarLong(means.length);
    for (int i = 0; i < means.length; i++) {
      out.writeDouble(means[i]);
      out.writeVarLong(weights[i]);
    }
  }

  /**
   * Reads what {@link #encodeTo} wrote. Checks: exact values finite and non-decreasing, at most
   * {@value #EXACT_LIMIT}; digest: more than {@value #EXACT_LIMIT} values in total, at most {@link
   * #maxCentroids} centroids (what t-digest allocates), finite min &le; means &le; max, means
   * non-decreasing, weights in [1, 2^31) summing to the count.
   */
  public static QuantileSketch decodeFrom(ByteSource in, double compression, long aggregateCount) {
    QuantileSketch sketch = new QuantileSketch(compression);
    int mode = in.readUnsignedByte("quantile mode");
    if (mode == 0) {
      int n = in.readVarInt("exact value count", 0, (int) Math.min(EXACT_LIMIT, aggregateCount));
      in.require(8L * n, "exact values");
      sketch.values = new double[n];
      for (int i = 0; i < n; i++) {
        double v = in.readDouble("exact value");
        // Double.compare is Arrays.sort's order (-0.0 before 0.0): the canonical order
        if (!Double.isFinite(v) || (i > 0 && Double.compare(v, sketch.values[i - 1]) < 0)) {
          throw new CodecException("exact quantile values must be finite and sorted, value " + i);
        }
        sketch.values[i] = v;
      }
      sketch.count = n;
      return sketch;
    }
    if (mode != 1) {
      throw new CodecException("unknown quantile mode " + mode);
    }
    double min = in.readDouble("digest min");
    double max = in.readDouble("digest max");
    if (!Double.isFinite(min) || !Double.isFinite(max) || min > max) {
      throw new CodecException("digest min/max invalid: " + min + ", " + max);
    }
    int n = in.readVarInt("centroid count", 2, maxCentroids(compression));
    in.require(9L * n, "centroids");
    double[] means = new double[n];
    long[] weights = new long[n];
    long total = 0;
    for (int i = 0; i < n; i++) {
      means[i] = in.readDouble("centroid mean");
      if (!(means[i] >= min && means[i] <= max) || (i > 0 && means[i] < means[i - 1])) {
        throw new CodecException("centroid means must be sorted within [min, max], centroid " + i);
      }
      weights[i] = in.readVarLong("centroid weight", 1, Integer.MAX_VALUE);
      total += weights[i];
    }
    if (weights[0] != 1 || weights[n - 1] != 1) {
      // t-digest's invariant: the extreme centroids are the single min and max samples
      throw new CodecException("first and last centroid weights must be 1");
    }
    if (total <= EXACT_LIMIT || total > aggregateCount) {
      throw new CodecException(
          "digest weight " + total + " must be in (" + EXACT_LIMIT + ", " + aggregateCount + "]");
    }
    sketch.values = null;
    sketch.means = means;
    sketch.weights = weights;
    sketch.min = min;
    sketch.max = max;
    sketch.count = total;
    return sketch;
  }
}

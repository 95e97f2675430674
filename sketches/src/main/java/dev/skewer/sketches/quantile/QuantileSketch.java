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
import java.util.Collection;

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
 * <p>Scale function: K_1 (arcsine), not the library default K_2, which concentrates centroids in
 * the tails (measured p50 rank errors up to 0.007 on 1M log-normal values). Centroids are stored at
 * {@value #STORE_FACTOR}&times; the compression; measured &le; 0.0007 at p50, p90, p99 and p99.9
 * (docs/sketches.md).
 *
 * <p>Representation and determinism: a digest is its compressed <em>centroids</em> plus the raw
 * values that arrived since they were last compressed (<em>pending</em>, fewer than {@value
 * #FOLD_EVERY}). Compression happens only when pending fills up, or when a sketch with centroids is
 * merged in — at points fixed by the values and merges themselves. Observing a sketch (a quantile,
 * an encoding, a copy, being merged into another) never changes it, so a sketch's state and bytes
 * are a function of what was folded in, in that order, and nothing else: not of when checkpoints
 * ran or where poll batches were cut. A decoded sketch continues exactly as the original. Pending
 * values are compressed in sorted order. Merging t-digests is not associative: results of different
 * merge orders agree only within the error bound.
 *
 * <p>Not thread-safe.
 */
public final class QuantileSketch {
  /** Values kept exactly before a digest is created. */
  public static final int EXACT_LIMIT = 128;

  /** Raw values held at most before they are compressed into the centroids. */
  public static final int FOLD_EVERY = 512;

  /**
   * Folds compress to this multiple of the compression: a digest is folded many times over its life
   * (every {@value #FOLD_EVERY} values and at every merge), and compressing each time to the public
   * compression compounds the error (p50 rank error 0.0064 on 1M log-normal values, against 0.0007
   * when held finer). The finer centroids are what is stored and merged.
   */
  static final int STORE_FACTOR = 2;

  private static final ScaleFunction SCALE = ScaleFunction.K_1;

  private final double compression;
  private long count;

  // empty arrays are shared (never written: they are replaced when something is added), so that
  // the many small sketches of cold keys hold no empty arrays of their own
  private static final double[] NONE = {};
  private static final long[] NO_WEIGHTS = {};

  // exact mode: count <= EXACT_LIMIT; digest mode: the raw values since the last compression
  private double[] values = NONE;
  private int rawCount;

  // digest mode: compressed centroids (empty until the first compression)
  private double[] means = NONE;
  private long[] weights = NO_WEIGHTS;
  private double min = Double.POSITIVE_INFINITY;
  private double max = Double.NEGATIVE_INFINITY;

  public QuantileSketch(double compression) {
    this.compression = compression;
  }

  /** Largest number of centroids a stored digest of this compression can hold. */
  public static int maxCentroids(double compression) {
    double c = Math.max(10, compression * STORE_FACTOR);
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
    appendRaw(x);
    count++;
    min = Math.min(min, x);
    max = Math.max(max, x);
    if (!isExact() && rawCount >= FOLD_EVERY) {
      fold(null, null);
    }
  }

  private void appendRaw(double x) {
    if (values.length == rawCount) {
      values = Arrays.copyOf(values, Math.max(8, rawCount * 2));
    }
    values[rawCount++] = x;
  }

  private MergingDigest newDigest() {
    MergingDigest d = new MergingDigest(compression * STORE_FACTOR);
    d.setScaleFunction(SCALE);
    return d;
  }

  /** A MergingDigest holding the centroids and then the raw values (sorted); this is unchanged. */
  private MergingDigest digest() {
    MergingDigest d = centroidDigest();
    addSorted(d, values, rawCount);
    return d;
  }

  /** A MergingDigest holding exactly the centroids (an empty one when there are none). */
  private MergingDigest centroidDigest() {
    return means.length == 0 ? newDigest() : materialize();
  }

  private static void addSorted(MergingDigest d, double[] vals, int n) {
    double[] sorted = Arrays.copyOf(vals, n);
    Arrays.sort(sorted);
    for (double v : sorted) {
      d.add(v);
    }
  }

  /**
   * Compresses the centroids, the raw values and (optionally) another sketch's centroids and raw
   * values, in that order, into new centroids; no raw values remain.
   */
  private void fold(double[] otherMeans, long[] otherWeights) {
    // the raw values are dropped below: sorted in place rather than copied
    MergingDigest d = centroidDigest();
    Arrays.sort(values, 0, rawCount);
    for (int i = 0; i < rawCount; i++) {
      d.add(values[i]);
    }
    if (otherMeans != null) {
      for (int i = 0; i < otherMeans.length; i++) {
        d.add(otherMeans[i], (int) otherWeights[i]);
      }
    }
    // centroids() compresses (forced): call it once, a second call would merge the centroids again
    Collection<Centroid> centroids = d.centroids();
    int n = centroids.size();
    means = new double[n];
    weights = new long[n];
    int i = 0;
    for (Centroid c : centroids) {
      means[i] = c.mean();
      weights[i] = c.count();
      i++;
    }
    values = NONE;
    rawCount = 0;
  }

  /** A MergingDigest holding exactly the centroids (t-digest's verbose layout). */
  private MergingDigest materialize() {
    int n = means.length;
    ByteBuffer buf = scratch(4 + 8 * 3 + 4 + 16 * n);
    buf.putInt(1); // MergingDigest.Encoding.VERBOSE_ENCODING
    buf.putDouble(min);
    buf.putDouble(max);
    buf.putDouble(compression * STORE_FACTOR);
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

  // fromBytes reads the buffer and keeps none of it: one buffer per thread serves every sketch
  private static final ThreadLocal<ByteBuffer> SCRATCH =
      ThreadLocal.withInitial(() -> ByteBuffer.allocate(0));

  /** A cleared buffer of at least {@code bytes} for this thread. */
  private static ByteBuffer scratch(int bytes) {
    ByteBuffer buf = SCRATCH.get();
    if (buf.capacity() < bytes) {
      buf = ByteBuffer.allocate(bytes);
      SCRATCH.set(buf);
    }
    buf.clear();
    return buf;
  }

  /**
   * Folds {@code other} in, leaving it unchanged. Into an empty sketch, a copy; raw values (exact,
   * or pending) are appended to this sketch's raw values; a sketch with centroids is compressed
   * together with this one's state (this one's centroids and raw values first).
   */
  public void merge(QuantileSketch other) {
    if (other.compression != compression) {
      throw new IllegalArgumentException("cannot merge t-digests of different compression");
    }
    if (other.count == 0) {
      return;
    }
    if (count == 0) {
      copyFrom(other);
      return;
    }
    // other's raw values in ascending order, so that the fold points depend on the values alone
    // (a decoded sketch holds them sorted, a live one in arrival order)
    double[] otherRaw = Arrays.copyOf(other.values, other.rawCount);
    Arrays.sort(otherRaw);
    if (other.means.length == 0) {
      for (double v : otherRaw) {
        update(v);
      }
      return;
    }
    // other has centroids: its raw values join ours, then all is compressed with its centroids
    count += other.count;
    min = Math.min(min, other.min);
    max = Math.max(max, other.max);
    for (double v : otherRaw) {
      appendRaw(v);
    }
    fold(other.means, other.weights);
  }

  private void copyFrom(QuantileSketch other) {
    count = other.count;
    values = other.rawCount == 0 ? NONE : Arrays.copyOf(other.values, other.rawCount);
    rawCount = other.rawCount;
    means = other.means.length == 0 ? NONE : other.means.clone();
    weights = other.weights.length == 0 ? NO_WEIGHTS : other.weights.clone();
    min = other.min;
    max = other.max;
  }

  public QuantileSketch copy() {
    QuantileSketch copy = new QuantileSketch(compression);
    copy.copyFrom(this);
    return copy;
  }

  /** The q-quantile; NaN with rank error 0 when empty. */
  public QuantileEstimate quantile(double q) {
    return quantiles(new double[] {q})[0];
  }

  /**
   * The quantiles {@code qs}, in their order: what {@link #quantile} gives for each, with the
   * digest built (or the exact values sorted) once for all of them.
   */
  public QuantileEstimate[] quantiles(double[] qs) {
    QuantileEstimate[] out = new QuantileEstimate[qs.length];
    if (count == 0) {
      for (int i = 0; i < qs.length; i++) {
        out[i] = new QuantileEstimate(qs[i], Double.NaN, 0);
      }
      return out;
    }
    if (isExact()) {
      double[] sorted = Arrays.copyOf(values, rawCount);
      Arrays.sort(sorted);
      for (int i = 0; i < qs.length; i++) {
        int rank = (int) Math.ceil(qs[i] * count) - 1;
        out[i] =
            new QuantileEstimate(qs[i], sorted[Math.max(0, Math.min((int) count - 1, rank))], 0);
      }
      return out;
    }
    // the first quantile compresses the digest's raw values; the others read the same centroids
    MergingDigest d = digest();
    for (int i = 0; i < qs.length; i++) {
      double bound = Math.min(1, SCALE.max(qs[i], SCALE.normalizer(compression, count)));
      out[i] = new QuantileEstimate(qs[i], d.quantile(qs[i]), bound);
    }
    return out;
  }

  /** Approximate heap footprint in bytes. */
  public long heapBytes() {
    return 64 + 16 + 8L * values.length + 2 * (16 + 8L * means.length);
  }

  /**
   * Writes: u8 mode; exact (0): varint n, n &times; f64 sorted ascending; digest (1): f64 min, f64
   * max, varint c, c &times; (f64 mean, varint weight) in centroid order; digest with raw values
   * (2): f64 min, f64 max, varint c, c centroids as in 1 (c may be 0), varint r, r &times; f64 raw
   * values sorted ascending. Mode 1 is written when there are no raw values.
   */
  public void encodeTo(ByteSink out) {
    double[] raw = Arrays.copyOf(values, rawCount);
    Arrays.sort(raw);
    if (isExact()) {
      out.writeByte(0);
      out.writeVarLong(rawCount);
      for (double v : raw) {
        out.writeDouble(v);
      }
      return;
    }
    out.writeByte(rawCount == 0 ? 1 : 2);
    out.writeDouble(min);
    out.writeDouble(max);
    out.writeVarLong(means.length);
    for (int i = 0; i < means.length; i++) {
      out.writeDouble(means[i]);
      out.writeVarLong(weights[i]);
    }
    if (rawCount > 0) {
      out.writeVarLong(rawCount);
      for (double v : raw) {
        out.writeDouble(v);
      }
    }
  }

  /**
   * Reads what {@link #encodeTo} wrote. Checks: exact values finite and non-decreasing, at most
   * {@value #EXACT_LIMIT}; digest: more than {@value #EXACT_LIMIT} values in total, at most {@link
   * #maxCentroids} centroids (what t-digest allocates), finite min &le; means &le; max, means
   * non-decreasing, weights in [1, 2^31), the first and last weight 1 (with raw values also: none,
   * or at least two centroids), fewer than {@value #FOLD_EVERY} raw values in [min, max],
   * non-decreasing; the weights and raw values summing to the count.
   */
  public static QuantileSketch decodeFrom(ByteSource in, double compression, long aggregateCount) {
    QuantileSketch sketch = new QuantileSketch(compression);
    int mode = in.readUnsignedByte("quantile mode");
    if (mode == 0) {
      int n = in.readVarInt("exact value count", 0, (int) Math.min(EXACT_LIMIT, aggregateCount));
      double[] vals =
          readSorted(in, n, "exact", Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY);
      sketch.values = vals;
      sketch.rawCount = n;
      sketch.count = n;
      for (double v : vals) {
        sketch.min = Math.min(sketch.min, v);
        sketch.max = Math.max(sketch.max, v);
      }
      return sketch;
    }
    if (mode != 1 && mode != 2) {
      throw new CodecException("unknown quantile mode " + mode);
    }
    double min = in.readDouble("digest min");
    double max = in.readDouble("digest max");
    if (!Double.isFinite(min) || !Double.isFinite(max) || min > max) {
      throw new CodecException("digest min/max invalid: " + min + ", " + max);
    }
    int n = in.readVarInt("centroid count", mode == 1 ? 2 : 0, maxCentroids(compression));
    if (mode == 2 && n == 1) {
      throw new CodecException("a digest has no centroid or at least two, had 1");
    }
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
    if (n > 0 && (weights[0] != 1 || weights[n - 1] != 1)) {
      // t-digest's invariant: the extreme centroids are the single min and max samples
      throw new CodecException("first and last centroid weights must be 1");
    }
    int raw = 0;
    double[] vals = NONE;
    if (mode == 2) {
      raw = in.readVarInt("raw value count", 1, FOLD_EVERY - 1);
      vals = readSorted(in, raw, "raw", min, max);
    }
    total += raw;
    if (total <= EXACT_LIMIT || total > aggregateCount) {
      throw new CodecException(
          "digest weight " + total + " must be in (" + EXACT_LIMIT + ", " + aggregateCount + "]");
    }
    sketch.values = vals;
    sketch.rawCount = raw;
    sketch.means = means;
    sketch.weights = weights;
    sketch.min = min;
    sketch.max = max;
    sketch.count = total;
    return sketch;
  }

  private static double[] readSorted(ByteSource in, int n, String what, double lo, double hi) {
    in.require(8L * n, what + " values");
    double[] vals = n == 0 ? NONE : new double[n];
    String label = what + " value"; // once per call, not per value: this runs for every Partial
    for (int i = 0; i < n; i++) {
      double v = in.readDouble(label);
      // Double.compare is Arrays.sort's order (-0.0 before 0.0): the canonical order
      if (!Double.isFinite(v)
          || v < lo
          || v > hi
          || (i > 0 && Double.compare(v, vals[i - 1]) < 0)) {
        throw new CodecException(
            what + " quantile values must be finite, sorted and within bounds, value " + i);
      }
      vals[i] = v;
    }
    return vals;
  }
}

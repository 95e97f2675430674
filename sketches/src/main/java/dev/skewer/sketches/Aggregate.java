package dev.skewer.sketches;

import dev.skewer.sketches.frequency.FrequencySketch;
import dev.skewer.sketches.hll.DistinctSketch;
import dev.skewer.sketches.quantile.QuantileSketch;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Mergeable aggregate state of one (key, window slice): the event count, per numeric field the
 * count of values, sum, min and max, and the sketches its {@link SketchSpec} asks for: distinct
 * values (HyperLogLog++), item frequencies and heavy hitters (Count-Min Sketch plus candidates),
 * and quantiles (t-digest).
 *
 * <h2>Laws</h2>
 *
 * For aggregates of one spec, with {@code a ⊕ b} meaning {@code a.merge(b)}:
 *
 * <ul>
 *   <li><b>Identity:</b> {@code empty(spec) ⊕ a} and {@code a ⊕ empty(spec)} equal {@code a}.
 *   <li><b>Associativity and commutativity:</b> {@code (a ⊕ b) ⊕ c} equals {@code a ⊕ (b ⊕ c)} and
 *       {@code a ⊕ b} equals {@code b ⊕ a}.
 *   <li><b>Split/merge:</b> merging the aggregates of any split of a stream, in any order, equals
 *       aggregating the whole stream.
 * </ul>
 *
 * "Equals" means: exactly for count, value counts, min, max, the distinct sketch (same registers,
 * same estimate) and the frequency table (same CMS, same point estimates, exact counts while
 * exact); up to floating-point reassociation for sums (exact when values are integers below 2^53);
 * within the published error bound for heavy-hitter candidate membership and for quantiles
 * (t-digest merging is not associative, so a coordinator should merge in a fixed order). Exact
 * quantiles (at most {@value QuantileSketch#EXACT_LIMIT} values) obey all laws exactly.
 *
 * <h2>Error bounds</h2>
 *
 * Every estimate carries its bound: {@link DistinctEstimate#relativeStandardError()}
 * (1.04/&radic;2^p), {@link HeavyHitter#maxOverestimate()} (&lceil;&epsilon;N&rceil; from the CMS,
 * 0 while exact), and {@link QuantileEstimate#rankError()} (0 while exact, else t-digest's centroid
 * size bound at q). See the sketch classes for the derivations.
 *
 * <h2>Input</h2>
 *
 * NaN means "absent" and is skipped; infinite values are refused with {@link
 * IllegalArgumentException} before anything is updated (the node routes them to the DLQ).
 *
 * <h2>Observation canonicalises</h2>
 *
 * Reading quantiles or heavy hitters, encoding, copying, or being merged into another aggregate may
 * rewrite internal representations (compress a live t-digest into its centroids, refresh cached CMS
 * estimates) without changing any estimate, so that an aggregate decoded from its encoding
 * continues exactly like the original.
 *
 * <p>Memory: sketches start small (sparse HLL, exact item map, exact value array) and grow only
 * with the data: see docs/sketches.md for bytes per (key, window).
 *
 * <p>Not thread-safe; single owner.
 */
public final class Aggregate {

  private final SketchSpec spec;
  private long count;
  private final long[] valueCounts;
  private final double[] sums;
  private final double[] mins;
  private final double[] maxs;
  private final DistinctSketch distinct;
  private final FrequencySketch frequencies;
  private final QuantileSketch quantiles;

  private Aggregate(SketchSpec spec) {
    this(
        spec,
        spec.distinct() ? new DistinctSketch(spec.hllPrecision(), spec.hllSparsePrecision()) : null,
        spec.frequencies()
            ? new FrequencySketch(spec.cmsEpsilon(), spec.cmsDelta(), spec.heavyHitterCapacity())
            : null,
        spec.quantiles() ? new QuantileSketch(spec.tdigestCompression()) : null);
  }

  private Aggregate(
      SketchSpec spec,
      DistinctSketch distinct,
      FrequencySketch frequencies,
      QuantileSketch quantiles) {
    this.spec = spec;
    int n = spec.numericFields();
    this.valueCounts = new long[n];
    this.sums = new double[n];
    this.mins = new double[n];
    this.maxs = new double[n];
    Arrays.fill(mins, Double.POSITIVE_INFINITY);
    Arrays.fill(maxs, Double.NEGATIVE_INFINITY);
    this.distinct = distinct;
    this.frequencies = frequencies;
    this.quantiles = quantiles;
  }

  /** An empty aggregate (the identity of {@link #merge}). */
  public static Aggregate empty(SketchSpec spec) {
    return new Aggregate(Objects.requireNonNull(spec, "spec"));
  }

  /** For the codec: an aggregate from decoded, already validated parts. */
  static Aggregate restore(
      SketchSpec spec,
      long count,
      long[] valueCounts,
      double[] sums,
      double[] mins,
      double[] maxs,
      DistinctSketch distinct,
      FrequencySketch frequencies,
      QuantileSketch quantiles) {
    Aggregate a = new Aggregate(spec, distinct, frequencies, quantiles);
    a.count = count;
    System.arraycopy(valueCounts, 0, a.valueCounts, 0, valueCounts.length);
    System.arraycopy(sums, 0, a.sums, 0, sums.length);
    System.arraycopy(mins, 0, a.mins, 0, mins.length);
    System.arraycopy(maxs, 0, a.maxs, 0, maxs.length);
    return a;
  }

  public SketchSpec spec() {
    return spec;
  }

  /**
   * Folds in one event.
   *
   * @param numeric values of the numeric fields, {@code numeric.length == spec().numericFields()}
   *     (the array is not retained; NaN means "field absent in this event" and is skipped; null is
   *     allowed when the spec has no numeric fields)
   * @param distinctItem item for the distinct count, or null (ignored if distinct is off)
   * @param frequentItem item for the heavy hitters, or null (ignored if frequencies are off)
   * @param quantileValue value for the quantiles, NaN if absent (ignored if quantiles are off)
   * @throws IllegalArgumentException for a wrong number of numeric values, an infinite value or a
   *     {@code frequentItem} with a lone surrogate (it could not cross the wire as UTF-8); the
   *     aggregate is then unchanged
   */
  public void update(
      double[] numeric, String distinctItem, String frequentItem, double quantileValue) {
    int n = spec.numericFields();
    if (numeric == null ? n != 0 : numeric.length != n) {
      throw new IllegalArgumentException(
          "numeric must have " + n + " values, had " + (numeric == null ? "null" : numeric.length));
    }
    for (int i = 0; i < n; i++) {
      if (Double.isInfinite(numeric[i])) {
        throw new IllegalArgumentException(
            "numeric[" + i + "] must be finite or NaN, was " + numeric[i]);
      }
    }
    if (frequencies != null && frequentItem != null && hasLoneSurrogate(frequentItem)) {
      // stored items travel as UTF-8, which cannot carry a lone surrogate
      throw new IllegalArgumentException("frequentItem must be valid Unicode (lone surrogate)");
    }
    if (Double.isInfinite(quantileValue)) {
      throw new IllegalArgumentException(
          "quantileValue must be finite or NaN, was " + quantileValue);
    }
    count++;
    for (int i = 0; i < n; i++) {
      double v = numeric[i];
      if (Double.isNaN(v)) {
        continue;
      }
      valueCounts[i]++;
      sums[i] += v;
      if (v < mins[i]) {
        mins[i] = v;
      }
      if (v > maxs[i]) {
        maxs[i] = v;
      }
    }
    if (distinct != null && distinctItem != null) {
      distinct.update(distinctItem);
    }
    if (frequencies != null && frequentItem != null) {
      frequencies.update(frequentItem);
    }
    if (quantiles != null && !Double.isNaN(quantileValue)) {
      quantiles.update(quantileValue);
    }
  }

  private static boolean hasLoneSurrogate(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
          i++;
          continue;
        }
        return true;
      }
      if (Character.isLowSurrogate(c)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Folds {@code other} into this; {@code other} keeps its estimates (its internal representation
   * may be canonicalised, see the class javadoc).
   *
   * @throws IllegalArgumentException if {@code other} has a different spec
   */
  public void merge(Aggregate other) {
    requireMergeableWith(other.spec);
    if (other == this) {
      other = copy();
    }
    count += other.count;
    for (int i = 0; i < sums.length; i++) {
      if (other.valueCounts[i] == 0) {
        continue;
      }
      valueCounts[i] += other.valueCounts[i];
      sums[i] += other.sums[i];
      mins[i] = Math.min(mins[i], other.mins[i]);
      maxs[i] = Math.max(maxs[i], other.maxs[i]);
    }
    if (distinct != null) {
      distinct.merge(other.distinct);
    }
    if (frequencies != null) {
      frequencies.merge(other.frequencies);
    }
    if (quantiles != null) {
      quantiles.merge(other.quantiles);
    }
  }

  /**
   * Throws what {@link #merge} throws when this aggregate and one of spec {@code other} cannot be
   * merged: the one rule for both, for callers that skip a merge with an empty aggregate (its
   * identity law makes {@code empty(spec) ⊕ a} equal {@code a}, encoding included).
   *
   * @throws IllegalArgumentException if {@code other} is not this aggregate's spec
   */
  public void requireMergeableWith(SketchSpec other) {
    if (!spec.equals(other)) {
      throw new IllegalArgumentException(
          "cannot merge aggregates with different specs (this/other): "
              + spec.describeDifference(other));
    }
  }

  /** A deep copy with the same estimates, which evolves exactly like this one. */
  public Aggregate copy() {
    Aggregate c =
        new Aggregate(
            spec,
            distinct == null ? null : distinct.copy(),
            frequencies == null ? null : frequencies.copy(),
            quantiles == null ? null : quantiles.copy());
    c.count = count;
    System.arraycopy(valueCounts, 0, c.valueCounts, 0, valueCounts.length);
    System.arraycopy(sums, 0, c.sums, 0, sums.length);
    System.arraycopy(mins, 0, c.mins, 0, mins.length);
    System.arraycopy(maxs, 0, c.maxs, 0, maxs.length);
    return c;
  }

  /** Number of events folded in. */
  public long count() {
    return count;
  }

  /** Number of non-NaN values of {@code field} folded in (for averages: sum / valueCount). */
  public long valueCount(int field) {
    return valueCounts[checkField(field)];
  }

  /** Sum of the non-NaN values of {@code field}; 0 when none was seen. */
  public double sum(int field) {
    return sums[checkField(field)];
  }

  /** +Infinity when no value was seen. */
  public double min(int field) {
    return mins[checkField(field)];
  }

  /** -Infinity when no value was seen. */
  public double max(int field) {
    return maxs[checkField(field)];
  }

  private int checkField(int field) {
    if (field < 0 || field >= sums.length) {
      throw new IndexOutOfBoundsException(
          "field must be in [0, " + sums.length + "), was " + field);
    }
    return field;
  }

  /** The distinct-count estimate; IllegalStateException if the spec has no distinct sketch. */
  public DistinctEstimate distinct() {
    if (distinct == null) {
      throw new IllegalStateException("spec has no distinct sketch");
    }
    return new DistinctEstimate(distinct.estimate(), distinct.relativeStandardError());
  }

  /**
   * The q-quantile (0..1) estimate; IllegalStateException if the spec has no quantiles. With no
   * values the value is NaN (rank error 0).
   */
  public QuantileEstimate quantile(double q) {
    return quantiles(new double[] {q})[0];
  }

  /**
   * The quantiles {@code qs} (each in 0..1), in their order: {@link #quantile} of each, computed
   * together (one t-digest is built for all of them). IllegalStateException if the spec has no
   * quantiles.
   */
  public QuantileEstimate[] quantiles(double[] qs) {
    if (quantiles == null) {
      throw new IllegalStateException("spec has no quantiles");
    }
    for (double q : qs) {
      if (!(q >= 0 && q <= 1)) {
        throw new IllegalArgumentException("q must be in [0, 1], was " + q);
      }
    }
    return quantiles.quantiles(qs);
  }

  /** Number of values folded into the quantile sketch; IllegalStateException if it is off. */
  public long quantileCount() {
    if (quantiles == null) {
      throw new IllegalStateException("spec has no quantiles");
    }
    return quantiles.count();
  }

  /** Up to n heaviest items, heaviest first; IllegalStateException if frequencies are off. */
  public List<HeavyHitter> heavyHitters(int n) {
    if (n < 0) {
      throw new IllegalArgumentException("n must be >= 0, was " + n);
    }
    return requireFrequencies().heavyHitters(n);
  }

  /**
   * The frequency estimate of any item (0 if never seen while exact); IllegalStateException if
   * frequencies are off.
   */
  public HeavyHitter frequency(String item) {
    return requireFrequencies().estimate(Objects.requireNonNull(item, "item"));
  }

  /** Total number of items folded into the frequency sketch (the N of &epsilon;N). */
  public long frequencyTotal() {
    return requireFrequencies().total();
  }

  private FrequencySketch requireFrequencies() {
    if (frequencies == null) {
      throw new IllegalStateException("spec has no frequencies");
    }
    return frequencies;
  }

  /** Approximate heap footprint of this aggregate in bytes (for memory reporting). */
  public long heapBytes() {
    long bytes = 16 + 8 + 8 * 8 + 4 * (16 + 8L * sums.length);
    if (distinct != null) {
      bytes += distinct.heapBytes();
    }
    if (frequencies != null) {
      bytes += frequencies.heapBytes();
    }
    if (quantiles != null) {
      bytes += quantiles.heapBytes();
    }
    return bytes;
  }

  // package-private accessors for the codec
  long[] valueCountsArray() {
    return valueCounts;
  }

  double[] sumsArray() {
    return sums;
  }

  double[] minsArray() {
    return mins;
  }

  double[] maxsArray() {
    return maxs;
  }

  DistinctSketch distinctSketch() {
    return distinct;
  }

  FrequencySketch frequencySketch() {
    return frequencies;
  }

  QuantileSketch quantileSketch() {
    return quantiles;
  }

  @Override
  public String toString() {
    return "Aggregate{count=" + count + ", spec=" + spec + "}";
  }
}

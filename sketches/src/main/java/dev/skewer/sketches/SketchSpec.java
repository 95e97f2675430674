package dev.skewer.sketches;

import java.util.ArrayList;
import java.util.List;

/**
 * What one {@link Aggregate} tracks: how many numeric fields (each with count, sum, min and max),
 * and which optional sketches with which parameters. Two aggregates merge only if their specs are
 * equal (parameters of disabled sketches included, so that a spec means one thing everywhere).
 *
 * <p>Valid ranges, checked by the constructor (an {@link IllegalArgumentException} names the field
 * and the value):
 *
 * <ul>
 *   <li>{@code numericFields} in [0, 64];
 *   <li>{@code hllPrecision} p in [4, 18] (2^p registers; relative standard error 1.04/&radic;2^p);
 *   <li>{@code hllSparsePrecision} p' in [p, 25] (stream-lib's sparse encoding packs p' + 7 bits
 *       into an int: above 25 it silently loses accuracy);
 *   <li>{@code cmsEpsilon} &epsilon; in [1e-5, 1) (CMS width &lceil;2/&epsilon;&rceil; &le; 200,000
 *       counters per row) and {@code cmsDelta} &delta; in [1e-9, 1) (depth
 *       &lceil;log2(1/&delta;)&rceil; &le; 30 rows);
 *   <li>{@code heavyHitterCapacity} in [1, 10,000];
 *   <li>{@code tdigestCompression} in [10, 1000] (t-digest ignores values below 10).
 * </ul>
 *
 * <p>Examples: {@code SketchSpec.countsOnly(2).withDistinct(14, 25)} or {@code
 * SketchSpec.countsOnly(0).withFrequencies(0.001, 0.01, 64).withQuantiles(100)}.
 */
public record SketchSpec(
    int numericFields,
    boolean distinct,
    int hllPrecision,
    int hllSparsePrecision,
    boolean frequencies,
    double cmsEpsilon,
    double cmsDelta,
    int heavyHitterCapacity,
    boolean quantiles,
    double tdigestCompression) {

  public static final int DEFAULT_HLL_PRECISION = 14;
  public static final int DEFAULT_HLL_SPARSE_PRECISION = 25;
  public static final double DEFAULT_CMS_EPSILON = 0.001;
  public static final double DEFAULT_CMS_DELTA = 0.01;
  public static final int DEFAULT_HEAVY_HITTER_CAPACITY = 64;
  public static final double DEFAULT_TDIGEST_COMPRESSION = 100;

  public static final int MAX_NUMERIC_FIELDS = 64;
  public static final int MIN_HLL_PRECISION = 4;
  public static final int MAX_HLL_PRECISION = 18;
  public static final int MAX_HLL_SPARSE_PRECISION = 25;
  public static final double MIN_CMS_EPSILON = 1e-5;
  public static final double MIN_CMS_DELTA = 1e-9;
  public static final int MAX_HEAVY_HITTER_CAPACITY = 10_000;
  public static final double MIN_TDIGEST_COMPRESSION = 10;
  public static final double MAX_TDIGEST_COMPRESSION = 1000;

  public SketchSpec {
    if (numericFields < 0 || numericFields > MAX_NUMERIC_FIELDS) {
      throw new IllegalArgumentException(
          "numericFields must be in [0, " + MAX_NUMERIC_FIELDS + "], was " + numericFields);
    }
    if (hllPrecision < MIN_HLL_PRECISION || hllPrecision > MAX_HLL_PRECISION) {
      throw new IllegalArgumentException(
          "hllPrecision must be in ["
              + MIN_HLL_PRECISION
              + ", "
              + MAX_HLL_PRECISION
              + "], was "
              + hllPrecision);
    }
    if (hllSparsePrecision < hllPrecision || hllSparsePrecision > MAX_HLL_SPARSE_PRECISION) {
      throw new IllegalArgumentException(
          "hllSparsePrecision must be in [hllPrecision="
              + hllPrecision
              + ", "
              + MAX_HLL_SPARSE_PRECISION
              + "], was "
              + hllSparsePrecision);
    }
    if (!(cmsEpsilon >= MIN_CMS_EPSILON && cmsEpsilon < 1)) {
      throw new IllegalArgumentException(
          "cmsEpsilon must be in [" + MIN_CMS_EPSILON + ", 1), was " + cmsEpsilon);
    }
    if (!(cmsDelta >= MIN_CMS_DELTA && cmsDelta < 1)) {
      throw new IllegalArgumentException(
          "cmsDelta must be in [" + MIN_CMS_DELTA + ", 1), was " + cmsDelta);
    }
    if (heavyHitterCapacity < 1 || heavyHitterCapacity > MAX_HEAVY_HITTER_CAPACITY) {
      throw new IllegalArgumentException(
          "heavyHitterCapacity must be in [1, "
              + MAX_HEAVY_HITTER_CAPACITY
              + "], was "
              + heavyHitterCapacity);
    }
    if (!(tdigestCompression >= MIN_TDIGEST_COMPRESSION
        && tdigestCompression <= MAX_TDIGEST_COMPRESSION)) {
      throw new IllegalArgumentException(
          "tdigestCompression must be in ["
              + MIN_TDIGEST_COMPRESSION
              + ", "
              + MAX_TDIGEST_COMPRESSION
              + "], was "
              + tdigestCompression);
    }
  }

  /** Count plus sum/min/max of {@code numericFields} fields, no sketches. */
  public static SketchSpec countsOnly(int numericFields) {
    return new SketchSpec(
        numericFields,
        false,
        DEFAULT_HLL_PRECISION,
        DEFAULT_HLL_SPARSE_PRECISION,
        false,
        DEFAULT_CMS_EPSILON,
        DEFAULT_CMS_DELTA,
        DEFAULT_HEAVY_HITTER_CAPACITY,
        false,
        DEFAULT_TDIGEST_COMPRESSION);
  }

  public SketchSpec withDistinct(int precision, int sparsePrecision) {
    return new SketchSpec(
        numericFields,
        true,
        precision,
        sparsePrecision,
        frequencies,
        cmsEpsilon,
        cmsDelta,
        heavyHitterCapacity,
        quantiles,
        tdigestCompression);
  }

  /** Distinct counting with the default precisions (p 14, p' 25). */
  public SketchSpec withDistinct() {
    return withDistinct(DEFAULT_HLL_PRECISION, DEFAULT_HLL_SPARSE_PRECISION);
  }

  public SketchSpec withFrequencies(double epsilon, double delta, int capacity) {
    return new SketchSpec(
        numericFields,
        distinct,
        hllPrecision,
        hllSparsePrecision,
        true,
        epsilon,
        delta,
        capacity,
        quantiles,
        tdigestCompression);
  }

  /** Heavy hitters with the defaults (&epsilon; 0.001, &delta; 0.01, 64 candidates). */
  public SketchSpec withFrequencies() {
    return withFrequencies(DEFAULT_CMS_EPSILON, DEFAULT_CMS_DELTA, DEFAULT_HEAVY_HITTER_CAPACITY);
  }

  public SketchSpec withQuantiles(double compression) {
    return new SketchSpec(
        numericFields,
        distinct,
        hllPrecision,
        hllSparsePrecision,
        frequencies,
        cmsEpsilon,
        cmsDelta,
        heavyHitterCapacity,
        true,
        compression);
  }

  /** Quantiles with the default compression (100). */
  public SketchSpec withQuantiles() {
    return withQuantiles(DEFAULT_TDIGEST_COMPRESSION);
  }

  /**
   * Component by component, as a record compares ({@link Double#compare} for the doubles), written
   * out: the generated equals goes through method handles, which code compiled by C1 alone (the
   * coordinators', see docs/deploy.md) does not inline, and a coordinator compares specs once per
   * merged Partial.
   */
  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    return o instanceof SketchSpec s
        && numericFields == s.numericFields
        && distinct == s.distinct
        && hllPrecision == s.hllPrecision
        && hllSparsePrecision == s.hllSparsePrecision
        && frequencies == s.frequencies
        && Double.compare(cmsEpsilon, s.cmsEpsilon) == 0
        && Double.compare(cmsDelta, s.cmsDelta) == 0
        && heavyHitterCapacity == s.heavyHitterCapacity
        && quantiles == s.quantiles
        && Double.compare(tdigestCompression, s.tdigestCompression) == 0;
  }

  @Override
  public int hashCode() {
    int h = numericFields;
    h = 31 * h + Boolean.hashCode(distinct);
    h = 31 * h + hllPrecision;
    h = 31 * h + hllSparsePrecision;
    h = 31 * h + Boolean.hashCode(frequencies);
    h = 31 * h + Double.hashCode(cmsEpsilon);
    h = 31 * h + Double.hashCode(cmsDelta);
    h = 31 * h + heavyHitterCapacity;
    h = 31 * h + Boolean.hashCode(quantiles);
    return 31 * h + Double.hashCode(tdigestCompression);
  }

  /** The components that differ from {@code other}, as "name=this/other", for messages. */
  public String describeDifference(SketchSpec other) {
    List<String> diffs = new ArrayList<>();
    diff(diffs, "numericFields", numericFields, other.numericFields);
    diff(diffs, "distinct", distinct, other.distinct);
    diff(diffs, "hllPrecision", hllPrecision, other.hllPrecision);
    diff(diffs, "hllSparsePrecision", hllSparsePrecision, other.hllSparsePrecision);
    diff(diffs, "frequencies", frequencies, other.frequencies);
    diff(diffs, "cmsEpsilon", cmsEpsilon, other.cmsEpsilon);
    diff(diffs, "cmsDelta", cmsDelta, other.cmsDelta);
    diff(diffs, "heavyHitterCapacity", heavyHitterCapacity, other.heavyHitterCapacity);
    diff(diffs, "quantiles", quantiles, other.quantiles);
    diff(diffs, "tdigestCompression", tdigestCompression, other.tdigestCompression);
    return String.join(", ", diffs);
  }

  private static void diff(List<String> out, String name, Object mine, Object theirs) {
    if (!mine.equals(theirs)) {
      out.add(name + "=" + mine + "/" + theirs);
    }
  }
}

package dev.skewer.sketches;

/**
 * What one {@link Aggregate} tracks: how many numeric fields (each with sum, min and max), and
 * which optional sketches with which parameters. Two aggregates merge only if their specs are
 * equal.
 *
 * <p>CONTRACT STUB: the sketches module owner refines validation and javadoc; the components
 * and the constants below are the contract other modules code against.
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
    return new SketchSpec(numericFields, true, precision, sparsePrecision, frequencies, cmsEpsilon,
        cmsDelta, heavyHitterCapacity, quantiles, tdigestCompression);
  }

  public SketchSpec withFrequencies(double epsilon, double delta, int capacity) {
    return new SketchSpec(numericFields, distinct, hllPrecision, hllSparsePrecision, true, epsilon,
        delta, capacity, quantiles, tdigestCompression);
  }

  public SketchSpec withQuantiles(double compression) {
    return new SketchSpec(numericFields, distinct, hllPrecision, hllSparsePrecision, frequencies,
        cmsEpsilon, cmsDelta, heavyHitterCapacity, true, compression);
  }
}

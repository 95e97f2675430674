package dev.skewer.core.job;

import dev.skewer.sketches.SketchSpec;

/**
 * Parameters of the optional sketches; which sketches exist is decided by {@link InputSpec}.
 *
 * @param hllPrecision HyperLogLog++ precision p, in [4, 18]; relative standard error 1.04/√2^p
 * @param hllSparsePrecision sparse precision p', in [p, 25] (above 25 stream-lib loses accuracy)
 * @param cmsEpsilon Count-Min relative error, in [1e-5, 1); width 2/ε
 * @param cmsDelta Count-Min failure probability, in [1e-9, 1); depth ⌈ln(1/δ)⌉
 * @param heavyHitterCapacity candidates tracked for heavy hitters, in [1, 10000]
 * @param tdigestCompression t-digest compression, in [10, 1000]
 */
public record SketchesSpec(
    int hllPrecision,
    int hllSparsePrecision,
    double cmsEpsilon,
    double cmsDelta,
    int heavyHitterCapacity,
    double tdigestCompression) {

  public static final int DEFAULT_HLL_PRECISION = SketchSpec.DEFAULT_HLL_PRECISION;
  public static final int DEFAULT_HLL_SPARSE_PRECISION = SketchSpec.DEFAULT_HLL_SPARSE_PRECISION;
  public static final double DEFAULT_CMS_EPSILON = SketchSpec.DEFAULT_CMS_EPSILON;
  public static final double DEFAULT_CMS_DELTA = SketchSpec.DEFAULT_CMS_DELTA;
  public static final int DEFAULT_HEAVY_HITTER_CAPACITY = SketchSpec.DEFAULT_HEAVY_HITTER_CAPACITY;
  public static final double DEFAULT_TDIGEST_COMPRESSION = SketchSpec.DEFAULT_TDIGEST_COMPRESSION;

  public SketchesSpec {
    if (hllPrecision < 4 || hllPrecision > 18) {
      throw new JobSpecException("hllPrecision", "must be in [4, 18], was " + hllPrecision);
    }
    if (hllSparsePrecision < hllPrecision || hllSparsePrecision > 25) {
      throw new JobSpecException(
          "hllSparsePrecision",
          "must be in [hllPrecision (" + hllPrecision + "), 25], was " + hllSparsePrecision);
    }
    if (!(cmsEpsilon >= SketchSpec.MIN_CMS_EPSILON && cmsEpsilon < 1)) {
      throw new JobSpecException(
          "cmsEpsilon", "must be in [" + SketchSpec.MIN_CMS_EPSILON + ", 1), was " + cmsEpsilon);
    }
    if (!(cmsDelta >= SketchSpec.MIN_CMS_DELTA && cmsDelta < 1)) {
      throw new JobSpecException(
          "cmsDelta", "must be in [" + SketchSpec.MIN_CMS_DELTA + ", 1), was " + cmsDelta);
    }
    if (heavyHitterCapacity < 1 || heavyHitterCapacity > SketchSpec.MAX_HEAVY_HITTER_CAPACITY) {
      throw new JobSpecException(
          "heavyHitterCapacity",
          "must be in [1, "
              + SketchSpec.MAX_HEAVY_HITTER_CAPACITY
              + "], was "
              + heavyHitterCapacity);
    }
    if (!(tdigestCompression >= SketchSpec.MIN_TDIGEST_COMPRESSION
        && tdigestCompression <= SketchSpec.MAX_TDIGEST_COMPRESSION)) {
      throw new JobSpecException(
          "tdigestCompression",
          "must be in ["
              + SketchSpec.MIN_TDIGEST_COMPRESSION
              + ", "
              + SketchSpec.MAX_TDIGEST_COMPRESSION
              + "], was "
              + tdigestCompression);
    }
  }

  /** The sketches module's defaults (HLL p=14, p'=25; CMS ε=0.001, δ=0.01; 64; t-digest 100). */
  public static SketchesSpec defaults() {
    return new SketchesSpec(
        DEFAULT_HLL_PRECISION,
        DEFAULT_HLL_SPARSE_PRECISION,
        DEFAULT_CMS_EPSILON,
        DEFAULT_CMS_DELTA,
        DEFAULT_HEAVY_HITTER_CAPACITY,
        DEFAULT_TDIGEST_COMPRESSION);
  }
}

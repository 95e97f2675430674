package dev.skewer.core.job;

import dev.skewer.sketches.SketchSpec;

/**
 * Parameters of the optional sketches; which sketches exist is decided by {@link InputSpec}.
 *
 * @param hllPrecision HyperLogLog++ precision p, in [4, 18]; relative standard error 1.04/√2^p
 * @param hllSparsePrecision sparse precision p', in [p, 25] (above 25 stream-lib loses accuracy)
 * @param cmsEpsilon Count-Min relative error, in (0, 1); width 2/ε
 * @param cmsDelta Count-Min failure probability, in (0, 1); depth ⌈ln(1/δ)⌉
 * @param heavyHitterCapacity candidates tracked for heavy hitters, in [1, 100000]
 * @param tdigestCompression t-digest compression, in [10, 10000]
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
    if (!(cmsEpsilon >= 1e-6 && cmsEpsilon < 1)) {
      throw new JobSpecException("cmsEpsilon", "must be in [1e-6, 1), was " + cmsEpsilon);
    }
    if (!(cmsDelta >= 1e-12 && cmsDelta < 1)) {
      throw new JobSpecException("cmsDelta", "must be in [1e-12, 1), was " + cmsDelta);
    }
    if (heavyHitterCapacity < 1 || heavyHitterCapacity > 100_000) {
      throw new JobSpecException(
          "heavyHitterCapacity", "must be in [1, 100000], was " + heavyHitterCapacity);
    }
    if (!(tdigestCompression >= 10 && tdigestCompression <= 10_000)) {
      throw new JobSpecException(
          "tdigestCompression", "must be in [10, 10000], was " + tdigestCompression);
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

package dev.skewer.core.job;

import dev.skewer.sketches.SketchSpec;
import java.time.Duration;

/**
 * One aggregation job: the validated content of a job file. Immutable; load it with {@link
 * JobSpecLoader}.
 *
 * @param name the job name, written as the {@code event} field of every result
 * @param input the field mapping of events
 * @param window the windows
 * @param watermark watermark delay and idleness
 * @param allowedLateness how long after a window closes late events still revise its result (>= 0;
 *     0 = late events go to the late topic)
 * @param sketches sketch parameters
 * @param output result shape
 * @param topics Kafka topics
 * @param topK no longer used (the top-K API ranks every key of a window); still validated in [1,
 *     1000000] and accepted so existing job files load
 * @param guarantee what the job promises after failures ({@link Guarantee}); written into every
 *     result
 */
public record JobSpec(
    String name,
    InputSpec input,
    WindowSpec window,
    WatermarkSpec watermark,
    Duration allowedLateness,
    SketchesSpec sketches,
    OutputSpec output,
    TopicsSpec topics,
    int topK,
    Guarantee guarantee) {

  public static final Duration DEFAULT_ALLOWED_LATENESS = Duration.ZERO;
  public static final int DEFAULT_TOP_K = 100;

  /** The default guarantee: the faster one; a job that needs more says so. */
  public static final Guarantee DEFAULT_GUARANTEE = Guarantee.AT_LEAST_ONCE;

  public JobSpec {
    Names.requireNonNull("name", name);
    if (name.isBlank() || name.length() > 256) {
      throw new JobSpecException(
          "name", "must be non-blank and at most 256 chars, was '" + name + "'");
    }
    Names.requireNonNull("input", input);
    Names.requireNonNull("window", window);
    watermark = watermark == null ? WatermarkSpec.defaults() : watermark;
    allowedLateness = allowedLateness == null ? DEFAULT_ALLOWED_LATENESS : allowedLateness;
    WindowChecks.nonNegative("allowedLateness", allowedLateness);
    sketches = sketches == null ? SketchesSpec.defaults() : sketches;
    output = output == null ? OutputSpec.defaults() : output;
    topics = topics == null ? TopicsSpec.defaults(name) : topics;
    guarantee = guarantee == null ? DEFAULT_GUARANTEE : guarantee;
    if (topK < 1 || topK > 1_000_000) {
      throw new JobSpecException("topK", "must be in [1, 1000000], was " + topK);
    }
    if (input.frequencyPointer() != null
        && output.heavyHitters() > sketches.heavyHitterCapacity()) {
      throw new JobSpecException(
          "output.heavyHitters",
          "must be <= sketches.heavyHitterCapacity ("
              + sketches.heavyHitterCapacity()
              + "), was "
              + output.heavyHitters());
    }
  }

  /** A job with the {@link #DEFAULT_GUARANTEE default guarantee}. */
  public JobSpec(
      String name,
      InputSpec input,
      WindowSpec window,
      WatermarkSpec watermark,
      Duration allowedLateness,
      SketchesSpec sketches,
      OutputSpec output,
      TopicsSpec topics,
      int topK) {
    this(
        name,
        input,
        window,
        watermark,
        allowedLateness,
        sketches,
        output,
        topics,
        topK,
        DEFAULT_GUARANTEE);
  }

  /** This job with other topics (everything else, the guarantee included, unchanged). */
  public JobSpec withTopics(TopicsSpec newTopics) {
    return new JobSpec(
        name,
        input,
        window,
        watermark,
        allowedLateness,
        sketches,
        output,
        newTopics,
        topK,
        guarantee);
  }

  /**
   * The sketch configuration of this job's aggregates: one numeric slot per {@code
   * input.numericFields} entry (in order), and the distinct, frequency and quantile sketches on
   * exactly when their pointer is configured.
   */
  public SketchSpec toSketchSpec() {
    return new SketchSpec(
        input.numericFields().size(),
        input.distinctPointer() != null,
        sketches.hllPrecision(),
        sketches.hllSparsePrecision(),
        input.frequencyPointer() != null,
        sketches.cmsEpsilon(),
        sketches.cmsDelta(),
        sketches.heavyHitterCapacity(),
        input.quantilePointer() != null,
        sketches.tdigestCompression());
  }
}

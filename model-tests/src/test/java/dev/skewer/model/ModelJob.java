package dev.skewer.model;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import dev.skewer.loadgen.reference.ShapeReference;
import java.util.Map;

/**
 * The job and topology of one history: the window shape, watermark and lateness settings, the
 * sketches, and how many partitions and processes each stage has.
 *
 * @param shape tumbling, hopping or session
 * @param sizeMs window size (tumbling, hopping)
 * @param hopMs hop (hopping)
 * @param gapMs session gap (session)
 * @param delayMs watermark delay
 * @param latenessMs allowed lateness
 * @param sketches whether distinct counts and quantiles are on (their bytes must be deterministic)
 * @param sources events partitions
 * @param partials partials partitions
 * @param nodes node processes
 * @param coordinators coordinator processes
 */
record ModelJob(
    Shape shape,
    long sizeMs,
    long hopMs,
    long gapMs,
    long delayMs,
    long latenessMs,
    boolean sketches,
    int sources,
    int partials,
    int nodes,
    int coordinators) {

  enum Shape {
    TUMBLING,
    HOPPING,
    SESSION
  }

  /** Processing time of silence after which a partition is idle. */
  static final long IDLE_MS = 1_000;

  /** Processing time of silence after which a partition's open slices are finalized. */
  static final long FINALIZE_AFTER_IDLE_MS = 1_500;

  /** Event time beyond a record's timestamp that is refused as future. */
  static final long MAX_FUTURE_SKEW_MS = 60_000;

  /** Records above this go to the DLQ as too large. */
  static final int MAX_RECORD_BYTES = 300;

  static final String EVENTS = "events";
  static final String RESULTS = "results";
  static final String LATE = "late";
  static final String DLQ = "dlq";
  static final String PARTIALS = "partials";

  /** The job file of this history. */
  String yaml() {
    String window =
        switch (shape) {
          case TUMBLING -> "  type: tumbling\n  size: " + sizeMs + "ms\n";
          case HOPPING -> "  type: hopping\n  size: " + sizeMs + "ms\n  hop: " + hopMs + "ms\n";
          case SESSION -> "  type: session\n  gap: " + gapMs + "ms\n";
        };
    return "name: model\n"
        + "input:\n"
        + "  keyPointer: /key\n"
        + "  timePointer: /ts\n"
        + "  maxRecordBytes: "
        + MAX_RECORD_BYTES
        + "\n"
        + "  numericFields:\n"
        + "    - name: value\n"
        + "      pointer: /value\n"
        + (sketches ? "  distinctPointer: /user\n  quantilePointer: /value\n" : "")
        + "  dimensions:\n"
        + "    - name: group\n"
        + "      pointer: /group\n"
        + "window:\n"
        + window
        + "watermark:\n"
        + "  delay: "
        + delayMs
        + "ms\n"
        + "  idle: "
        + IDLE_MS
        + "ms\n"
        + "  maxFutureSkew: "
        + MAX_FUTURE_SKEW_MS
        + "ms\n"
        + "  finalizeAfterIdle: "
        + FINALIZE_AFTER_IDLE_MS
        + "ms\n"
        + "allowedLateness: "
        + latenessMs
        + "ms\n"
        + "output:\n"
        + (sketches ? "  quantiles: [0.5, 0.9]\n" : "  quantiles: []\n")
        + "topics:\n"
        + "  events: "
        + EVENTS
        + "\n"
        + "  eventsPartitions: "
        + sources
        + "\n"
        + "  partials: "
        + PARTIALS
        + "\n"
        + "  partialsPartitions: "
        + partials
        + "\n"
        + "  results: "
        + RESULTS
        + "\n"
        + "  late: "
        + LATE
        + "\n"
        + "  dlq: "
        + DLQ
        + "\n";
  }

  JobSpec spec() {
    return JobSpecLoader.parse(yaml(), Map.of());
  }

  /** The brute-force reference of this job's windows and lateness. */
  ShapeReference reference() {
    return switch (shape) {
      case TUMBLING -> ShapeReference.tumbling(sizeMs, delayMs, latenessMs, sources);
      case HOPPING -> ShapeReference.hopping(sizeMs, hopMs, delayMs, latenessMs, sources);
      case SESSION -> ShapeReference.sessions(gapMs, delayMs, latenessMs, sources);
    };
  }

  @Override
  public String toString() {
    String w =
        switch (shape) {
          case TUMBLING -> "tumbling " + sizeMs + "ms";
          case HOPPING -> "hopping " + sizeMs + "ms/" + hopMs + "ms";
          case SESSION -> "session gap " + gapMs + "ms";
        };
    return w
        + ", delay "
        + delayMs
        + "ms, lateness "
        + latenessMs
        + "ms"
        + (sketches ? ", sketches" : "")
        + ", "
        + sources
        + " sources on "
        + nodes
        + " node(s), "
        + partials
        + " partials partitions on "
        + coordinators
        + " coordinator(s)";
  }
}

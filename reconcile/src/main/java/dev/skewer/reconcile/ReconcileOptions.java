package dev.skewer.reconcile;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.core.window.SliceAssigner;
import dev.skewer.core.window.WindowShape;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * What to reconcile and how: the job, the broker, the event-time range {@code [from, to)} and the
 * knobs. Build with {@link #of} and the {@code with…} methods.
 *
 * @param job the job whose results are checked
 * @param kafka how to reach the broker
 * @param from the range start (inclusive): results whose interval starts before it are not checked
 * @param to the range end (exclusive): results whose interval ends after it are not checked
 * @param margin how much further than the range records are read, by record timestamp, either side
 *     (events produced away from their event time by more than this are not seen)
 * @param memoryBudgetBytes the sort buffer: beyond it, sorted runs are spilled to disk
 * @param spillDir where run files go (a fresh directory under it, deleted afterwards); null: the
 *     system temp directory
 * @param sigmas a distinct-count estimate is flagged when it is further than {@code sigmas × rse ×
 *     exact} from the exact count
 * @param correctionsTopic write corrected results there (created compacted if missing); null: write
 *     none
 * @param maxListed the most differences, flags and issues listed each (totals count all)
 * @param stallTimeout fail when a topic read gets no record for this long
 * @param clock for the "range not complete yet" warning
 */
public record ReconcileOptions(
    JobSpec job,
    KafkaSettings kafka,
    Instant from,
    Instant to,
    Duration margin,
    long memoryBudgetBytes,
    Path spillDir,
    double sigmas,
    String correctionsTopic,
    int maxListed,
    Duration stallTimeout,
    Clock clock) {

  public static final long DEFAULT_MEMORY_BUDGET_BYTES = 256L << 20;
  public static final double DEFAULT_SIGMAS = 3;
  public static final int DEFAULT_MAX_LISTED = 1000;
  public static final Duration DEFAULT_STALL_TIMEOUT = Duration.ofSeconds(60);
  public static final Duration MARGIN_SLACK = Duration.ofMinutes(1);

  public ReconcileOptions {
    Objects.requireNonNull(job, "job");
    Objects.requireNonNull(kafka, "kafka");
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(to, "to");
    if (!from.isBefore(to)) {
      throw new IllegalArgumentException("from must be before to, was " + from + " .. " + to);
    }
    margin = margin == null ? defaultMargin(job) : margin;
    if (margin.isNegative()) {
      throw new IllegalArgumentException("margin must be >= 0, was " + margin);
    }
    if (memoryBudgetBytes < 1 << 16) {
      throw new IllegalArgumentException(
          "memoryBudgetBytes must be >= 65536, was " + memoryBudgetBytes);
    }
    if (!(sigmas > 0)) {
      throw new IllegalArgumentException("sigmas must be > 0, was " + sigmas);
    }
    if (maxListed < 1) {
      throw new IllegalArgumentException("maxListed must be >= 1, was " + maxListed);
    }
    stallTimeout = stallTimeout == null ? DEFAULT_STALL_TIMEOUT : stallTimeout;
    clock = clock == null ? Clock.systemUTC() : clock;
  }

  /** Defaults for everything but the job, the broker and the range. */
  public static ReconcileOptions of(JobSpec job, KafkaSettings kafka, Instant from, Instant to) {
    return new ReconcileOptions(
        job,
        kafka,
        from,
        to,
        null,
        DEFAULT_MEMORY_BUDGET_BYTES,
        null,
        DEFAULT_SIGMAS,
        null,
        DEFAULT_MAX_LISTED,
        null,
        null);
  }

  /**
   * The default read margin: watermark delay + allowed lateness + the window's extent (size, or the
   * session gap) + {@link #MARGIN_SLACK}. An event the stream accepted was read before its
   * partition's watermark passed its window's end + allowed lateness, so when record timestamps
   * follow event times this margin sees every event the stream counted.
   */
  public static Duration defaultMargin(JobSpec job) {
    SliceAssigner slices = SliceAssigner.of(job.window());
    WindowShape shape = slices.shape();
    Duration extent;
    if (shape instanceof WindowShape.Hopping h) {
      extent = Duration.ofMillis(h.sizeMs());
    } else if (shape instanceof WindowShape.Session s) {
      extent = Duration.ofMillis(s.gapMs());
    } else {
      extent = Duration.ofMillis(slices.sliceEndMs(0)); // tumbling: the slice is the window
    }
    return job.watermark().delay().plus(job.allowedLateness()).plus(extent).plus(MARGIN_SLACK);
  }

  /** The default corrections topic of a job: {@code <results topic>.corrections}. */
  public static String defaultCorrectionsTopic(JobSpec job) {
    return job.topics().results() + ".corrections";
  }

  public ReconcileOptions withMargin(Duration m) {
    return new ReconcileOptions(
        job,
        kafka,
        from,
        to,
        m,
        memoryBudgetBytes,
        spillDir,
        sigmas,
        correctionsTopic,
        maxListed,
        stallTimeout,
        clock);
  }

  public ReconcileOptions withMemoryBudget(long bytes, Path dir) {
    return new ReconcileOptions(
        job,
        kafka,
        from,
        to,
        margin,
        bytes,
        dir,
        sigmas,
        correctionsTopic,
        maxListed,
        stallTimeout,
        clock);
  }

  public ReconcileOptions withSigmas(double s) {
    return new ReconcileOptions(
        job,
        kafka,
        from,
        to,
        margin,
        memoryBudgetBytes,
        spillDir,
        s,
        correctionsTopic,
        maxListed,
        stallTimeout,
        clock);
  }

  public ReconcileOptions withCorrections(String topic) {
    return new ReconcileOptions(
        job,
        kafka,
        from,
        to,
        margin,
        memoryBudgetBytes,
        spillDir,
        sigmas,
        topic,
        maxListed,
        stallTimeout,
        clock);
  }

  public ReconcileOptions withMaxListed(int n) {
    return new ReconcileOptions(
        job,
        kafka,
        from,
        to,
        margin,
        memoryBudgetBytes,
        spillDir,
        sigmas,
        correctionsTopic,
        n,
        stallTimeout,
        clock);
  }
}

package dev.skewer.stage;

/**
 * Metric names of the partition runtime, in one place. Each is tagged with the stage name as key
 * and the instance id as value ({@code node=node-1}, {@code coordinator=coordinator-1}), like the
 * stages' own metrics.
 */
public final class StageMetrics {
  /** Timer: snapshot, flush and store of one partition's checkpoint. */
  public static final String CHECKPOINT_DURATION = "skewer.checkpoint.duration";

  /** Distribution (bytes): size of one partition's checkpoint state. */
  public static final String CHECKPOINT_SIZE = "skewer.checkpoint.size";

  /** Counter: partitions taken over (restored from a checkpoint or started from scratch). */
  public static final String RESTORES = "skewer.partitions.restores";

  /** Counter: partitions rewound to their last checkpoint after a failure. */
  public static final String REWINDS = "skewer.partitions.rewinds";

  /** Counter: partitions found owned by a newer epoch (this process was a zombie). */
  public static final String FENCED = "skewer.partitions.fenced";

  /** Gauge: partitions owned and consuming. */
  public static final String OWNED = "skewer.partitions.owned";

  /** Gauge: partitions failing repeatedly (retried with a growing delay; not ready). */
  public static final String FAILING = "skewer.partitions.failing";

  /** Gauge: produced records not yet acknowledged. */
  public static final String PRODUCER_PENDING = "skewer.producer.pending";

  /** Counter: produced records that failed (each makes its partition rewind). */
  public static final String SEND_FAILURES = "skewer.producer.send.failures";

  private StageMetrics() {}
}

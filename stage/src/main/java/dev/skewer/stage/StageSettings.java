package dev.skewer.stage;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of one {@link PartitionRuntime}.
 *
 * @param stage what runs ({@code node}, {@code coordinator}): the metric tag key, and part of logs
 * @param instanceId this process's name (the metric tag value); one per process
 * @param inputTopic the topic whose partitions the runtime owns
 * @param checkpointPrefix checkpoint ids are {@code checkpointPrefix + partition}
 * @param startFromLatest without a checkpoint, start at the end of the partition (else the start)
 * @param maxPendingRecords records sent but not acknowledged above which no new batch is taken
 * @param tickInterval how often tasks are ticked
 * @param checkpointInterval how often each owned partition is checkpointed
 * @param pollTimeout how long one poll waits for records
 * @param revokeTimeout how long a rebalance waits for the final checkpoints of revoked partitions
 */
public record StageSettings(
    String stage,
    String instanceId,
    String inputTopic,
    String checkpointPrefix,
    boolean startFromLatest,
    int maxPendingRecords,
    Duration tickInterval,
    Duration checkpointInterval,
    Duration pollTimeout,
    Duration revokeTimeout) {

  public static final int DEFAULT_MAX_PENDING_RECORDS = 100_000;
  public static final Duration DEFAULT_TICK_INTERVAL = Duration.ofMillis(200);
  public static final Duration DEFAULT_CHECKPOINT_INTERVAL = Duration.ofSeconds(5);
  public static final Duration DEFAULT_POLL_TIMEOUT = Duration.ofMillis(100);
  public static final Duration DEFAULT_REVOKE_TIMEOUT = Duration.ofSeconds(30);

  public StageSettings {
    requireText("stage", stage);
    requireText("instanceId", instanceId);
    requireText("inputTopic", inputTopic);
    Objects.requireNonNull(checkpointPrefix, "checkpointPrefix");
    if (maxPendingRecords < 1) {
      throw new IllegalArgumentException(
          "maxPendingRecords must be >= 1, was " + maxPendingRecords);
    }
    tickInterval = positive("tickInterval", tickInterval, DEFAULT_TICK_INTERVAL);
    checkpointInterval =
        positive("checkpointInterval", checkpointInterval, DEFAULT_CHECKPOINT_INTERVAL);
    pollTimeout = positive("pollTimeout", pollTimeout, DEFAULT_POLL_TIMEOUT);
    revokeTimeout = positive("revokeTimeout", revokeTimeout, DEFAULT_REVOKE_TIMEOUT);
  }

  /** Settings with the defaults for everything but the names. */
  public static StageSettings of(
      String stage,
      String instanceId,
      String inputTopic,
      String checkpointPrefix,
      Duration checkpointInterval) {
    return new StageSettings(
        stage,
        instanceId,
        inputTopic,
        checkpointPrefix,
        false,
        DEFAULT_MAX_PENDING_RECORDS,
        DEFAULT_TICK_INTERVAL,
        checkpointInterval,
        DEFAULT_POLL_TIMEOUT,
        DEFAULT_REVOKE_TIMEOUT);
  }

  /** The checkpoint id of one partition. */
  public String checkpointId(int partition) {
    return checkpointPrefix + partition;
  }

  private static void requireText(String field, String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(
          field + " must be non-blank, was " + (value == null ? "null" : "'" + value + "'"));
    }
  }

  private static Duration positive(String field, Duration value, Duration fallback) {
    Duration d = value == null ? fallback : value;
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(field + " must be > 0, was " + d);
    }
    return d;
  }
}

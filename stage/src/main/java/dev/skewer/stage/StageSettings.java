package dev.skewer.stage;

import dev.skewer.core.job.Guarantee;
import dev.skewer.core.job.JobSpec;
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
 * @param revokeTimeout how long a rebalance waits for the final checkpoints of revoked partitions,
 *     and how long a fenced owner waits for the group's answer before it takes a partition that
 *     still looks assigned over again
 * @param guarantee {@code at_least_once}: one idempotent producer, checkpoints stored after the
 *     outputs they cover are acknowledged; {@code exactly_once}: one transactional producer per
 *     owned partition, each checkpoint one transaction (see {@link PartitionRuntime})
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
    Duration revokeTimeout,
    Guarantee guarantee) {

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
    guarantee = guarantee == null ? Guarantee.AT_LEAST_ONCE : guarantee;
  }

  /** Settings with the {@code at_least_once} guarantee. */
  public StageSettings(
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
    this(
        stage,
        instanceId,
        inputTopic,
        checkpointPrefix,
        startFromLatest,
        maxPendingRecords,
        tickInterval,
        checkpointInterval,
        pollTimeout,
        revokeTimeout,
        Guarantee.AT_LEAST_ONCE);
  }

  /** These settings with another guarantee. */
  public StageSettings withGuarantee(Guarantee g) {
    return new StageSettings(
        stage,
        instanceId,
        inputTopic,
        checkpointPrefix,
        startFromLatest,
        maxPendingRecords,
        tickInterval,
        checkpointInterval,
        pollTimeout,
        revokeTimeout,
        g);
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

  /**
   * The settings of a job's stage: checkpoint ids {@code stage/job/inputTopic/partition}, the job's
   * guarantee, the default poll and revoke timeouts.
   */
  public static StageSettings forJob(
      String stage,
      String instanceId,
      JobSpec job,
      String inputTopic,
      boolean startFromLatest,
      int maxPendingRecords,
      Duration tickInterval,
      Duration checkpointInterval) {
    return new StageSettings(
        stage,
        instanceId,
        inputTopic,
        stage + "/" + job.name() + "/" + inputTopic + "/",
        startFromLatest,
        maxPendingRecords,
        tickInterval,
        checkpointInterval,
        DEFAULT_POLL_TIMEOUT,
        DEFAULT_REVOKE_TIMEOUT,
        job.guarantee());
  }

  /** The checkpoint id of one partition. */
  public String checkpointId(int partition) {
    return checkpointPrefix + partition;
  }

  /**
   * The {@code transactional.id} of one partition's producer ({@code exactly_once}): derived from
   * the checkpoint id (stage, job, input topic, partition), the same in every process, so whoever
   * takes the partition over fences every earlier owner's producer.
   */
  public String transactionalId(int partition) {
    return "skewer-" + checkpointId(partition);
  }

  /**
   * How long the broker lets a transaction stay open before aborting it ({@code
   * transaction.timeout.ms}): three checkpoint intervals, at least 60 s (Kafka's default), at most
   * 15 min (the broker's default maximum).
   */
  public Duration transactionTimeout() {
    long ms = Math.max(60_000, 3 * checkpointInterval.toMillis());
    return Duration.ofMillis(Math.min(ms, 15 * 60_000));
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

package dev.skewer.node;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.KafkaSettings;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of one node process.
 *
 * @param nodeId a name for logs and metric tags (bounded cardinality: one per node)
 * @param job the job every process reads
 * @param kafka bootstrap servers and client properties
 * @param groupId the consumer group of all nodes
 * @param maxPendingRecords producer records sent but not acknowledged above which the node stops
 *     polling (back-pressure)
 * @param tickInterval how often idleness and end-of-input are checked
 * @param checkpointInterval how often each owned partition is checkpointed
 */
public record NodeSettings(
    String nodeId,
    JobSpec job,
    KafkaSettings kafka,
    String groupId,
    int maxPendingRecords,
    Duration tickInterval,
    Duration checkpointInterval) {

  public static final String DEFAULT_GROUP_ID = "skewer-nodes";
  public static final int DEFAULT_MAX_PENDING_RECORDS = 100_000;
  public static final Duration DEFAULT_TICK_INTERVAL = Duration.ofMillis(200);
  public static final Duration DEFAULT_CHECKPOINT_INTERVAL = Duration.ofSeconds(5);

  public NodeSettings {
    Objects.requireNonNull(nodeId, "nodeId");
    Objects.requireNonNull(job, "job");
    Objects.requireNonNull(kafka, "kafka");
    groupId = groupId == null ? DEFAULT_GROUP_ID : groupId;
    if (maxPendingRecords < 1) {
      throw new IllegalArgumentException(
          "maxPendingRecords must be >= 1, was " + maxPendingRecords);
    }
    tickInterval = tickInterval == null ? DEFAULT_TICK_INTERVAL : tickInterval;
    checkpointInterval =
        checkpointInterval == null ? DEFAULT_CHECKPOINT_INTERVAL : checkpointInterval;
    if (checkpointInterval.isNegative() || checkpointInterval.isZero()) {
      throw new IllegalArgumentException(
          "checkpointInterval must be > 0, was " + checkpointInterval);
    }
    if (tickInterval.isNegative() || tickInterval.isZero()) {
      throw new IllegalArgumentException("tickInterval must be > 0, was " + tickInterval);
    }
  }

  public static NodeSettings of(String nodeId, JobSpec job, KafkaSettings kafka) {
    return new NodeSettings(
        nodeId,
        job,
        kafka,
        DEFAULT_GROUP_ID,
        DEFAULT_MAX_PENDING_RECORDS,
        DEFAULT_TICK_INTERVAL,
        DEFAULT_CHECKPOINT_INTERVAL);
  }
}

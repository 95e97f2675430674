package dev.skewer.node;

import dev.skewer.core.job.JobNames;
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
 * @param groupId the consumer group of all nodes; null = {@code skewer-<job>-nodes} ({@link
 *     JobNames#nodesGroup()})
 * @param maxPendingRecords producer records sent but not acknowledged above which the node stops
 *     polling (back-pressure)
 * @param tickInterval how often idleness and end-of-input are checked
 * @param checkpointInterval how often each owned partition is checkpointed (and its offset
 *     committed)
 * @param httpHost the address the health and metrics endpoints bind
 * @param httpPort their port: {@link #NO_HTTP} for none, 0 for any free port
 */
public record NodeSettings(
    String nodeId,
    JobSpec job,
    KafkaSettings kafka,
    String groupId,
    int maxPendingRecords,
    Duration tickInterval,
    Duration checkpointInterval,
    String httpHost,
    int httpPort) {

  public static final int DEFAULT_MAX_PENDING_RECORDS = 100_000;
  public static final Duration DEFAULT_TICK_INTERVAL = Duration.ofMillis(200);
  public static final Duration DEFAULT_CHECKPOINT_INTERVAL = Duration.ofSeconds(5);
  public static final String DEFAULT_HTTP_HOST = "127.0.0.1";

  /** {@link #httpPort} of a node without HTTP endpoints. */
  public static final int NO_HTTP = -1;

  public NodeSettings {
    Objects.requireNonNull(nodeId, "nodeId");
    Objects.requireNonNull(job, "job");
    Objects.requireNonNull(kafka, "kafka");
    groupId = groupId == null ? JobNames.of(job).nodesGroup() : groupId;
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
    httpHost = httpHost == null ? DEFAULT_HTTP_HOST : httpHost;
    if (httpPort < NO_HTTP || httpPort > 65_535) {
      throw new IllegalArgumentException("httpPort must be in [-1, 65535], was " + httpPort);
    }
  }

  /** Defaults: the job's group, no HTTP endpoints. */
  public static NodeSettings of(String nodeId, JobSpec job, KafkaSettings kafka) {
    return new NodeSettings(
        nodeId,
        job,
        kafka,
        null,
        DEFAULT_MAX_PENDING_RECORDS,
        DEFAULT_TICK_INTERVAL,
        DEFAULT_CHECKPOINT_INTERVAL,
        DEFAULT_HTTP_HOST,
        NO_HTTP);
  }

  /** The same settings with HTTP endpoints on {@code host:port} (0 = any free port). */
  public NodeSettings withHttp(String host, int port) {
    return new NodeSettings(
        nodeId,
        job,
        kafka,
        groupId,
        maxPendingRecords,
        tickInterval,
        checkpointInterval,
        host,
        port);
  }
}

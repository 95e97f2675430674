package dev.skewer.coordinator;

import dev.skewer.coordinator.hotkey.HotKeySettings;
import dev.skewer.core.job.JobNames;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.KafkaSettings;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of one coordinator process.
 *
 * @param coordinatorId a name for logs and metric tags
 * @param job the job every process reads
 * @param kafka bootstrap servers and client properties
 * @param groupId the consumer group of all coordinators; null = {@code skewer-<job>-coordinators}
 *     ({@link JobNames#coordinatorsGroup()})
 * @param httpHost the address the HTTP API binds
 * @param httpPort the HTTP API port: 0 = any free port, {@link #NO_HTTP} = no HTTP server
 * @param maxPendingRecords produced records awaiting acknowledgement above which polling pauses
 * @param checkpointInterval how often each owned partials partition is checkpointed
 * @param hotKeys hot-key detection and publication; a null topic becomes the job's hot-key topic
 * @param provision whether missing internal topics (the hot-key topic) may be created
 */
public record CoordinatorSettings(
    String coordinatorId,
    JobSpec job,
    KafkaSettings kafka,
    String groupId,
    String httpHost,
    int httpPort,
    int maxPendingRecords,
    Duration checkpointInterval,
    HotKeySettings hotKeys,
    boolean provision) {

  public static final String DEFAULT_HTTP_HOST = "127.0.0.1";
  public static final int DEFAULT_HTTP_PORT = 8080;

  /** {@link #httpPort} of a coordinator without HTTP server. */
  public static final int NO_HTTP = -1;

  public static final int DEFAULT_MAX_PENDING_RECORDS = 100_000;
  public static final Duration DEFAULT_CHECKPOINT_INTERVAL = Duration.ofSeconds(5);

  public CoordinatorSettings {
    Objects.requireNonNull(coordinatorId, "coordinatorId");
    Objects.requireNonNull(job, "job");
    Objects.requireNonNull(kafka, "kafka");
    groupId = groupId == null ? JobNames.of(job).coordinatorsGroup() : groupId;
    httpHost = httpHost == null ? DEFAULT_HTTP_HOST : httpHost;
    if (httpPort < NO_HTTP || httpPort > 65535) {
      throw new IllegalArgumentException("httpPort must be in [-1, 65535], was " + httpPort);
    }
    if (maxPendingRecords < 1) {
      throw new IllegalArgumentException(
          "maxPendingRecords must be >= 1, was " + maxPendingRecords);
    }
    checkpointInterval =
        checkpointInterval == null ? DEFAULT_CHECKPOINT_INTERVAL : checkpointInterval;
    if (checkpointInterval.isNegative() || checkpointInterval.isZero()) {
      throw new IllegalArgumentException(
          "checkpointInterval must be > 0, was " + checkpointInterval);
    }
    hotKeys = hotKeys == null ? HotKeySettings.defaults() : hotKeys;
    if (hotKeys.topic() == null) {
      hotKeys = hotKeys.withTopic(JobNames.of(job).hotKeysTopic());
    }
  }

  /** The same settings with other hot-key settings. */
  public CoordinatorSettings withHotKeys(HotKeySettings hotKeys) {
    return new CoordinatorSettings(
        coordinatorId,
        job,
        kafka,
        groupId,
        httpHost,
        httpPort,
        maxPendingRecords,
        checkpointInterval,
        hotKeys,
        provision);
  }

  /** Defaults: the job's group, HTTP on loopback {@code httpPort}, topics created when missing. */
  public static CoordinatorSettings of(
      String coordinatorId, JobSpec job, KafkaSettings kafka, int httpPort) {
    return new CoordinatorSettings(
        coordinatorId,
        job,
        kafka,
        null,
        DEFAULT_HTTP_HOST,
        httpPort,
        DEFAULT_MAX_PENDING_RECORDS,
        DEFAULT_CHECKPOINT_INTERVAL,
        HotKeySettings.defaults(),
        true);
  }
}

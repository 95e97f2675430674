package dev.skewer.core.job;

import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * The names of a job's internal resources, all derived from the job name so that two jobs sharing a
 * Kafka cluster and a Hazelcast cluster never read or write each other's state: the Hazelcast
 * cluster name, every Hazelcast map, the internal topics (partials, checkpoints, hot keys) and the
 * consumer groups. The user-facing topics (events, results, late, dlq) keep the job file's names.
 *
 * <p>The job name is first turned into an {@link #id() id} that Kafka and Hazelcast accept:
 * characters outside {@code [a-zA-Z0-9_-]} become {@code _} (a {@code .} too, so the id never reads
 * as a name separator); when anything was replaced, or the name is longer than {@value
 * #MAX_ID_LENGTH} characters (cut), the id ends in {@code -} and 8 hex digits of a hash of the
 * whole name, so two names never share an id. {@code ad_clicks} stays {@code ad_clicks}; {@code ad
 * clicks} becomes {@code ad_clicks-} plus its hash.
 *
 * @param jobName the job name as written in the job file
 * @param id the sanitized name used inside every derived name
 */
public record JobNames(String jobName, String id) {

  /** Longest id: every derived topic name stays within Kafka's 249 characters. */
  public static final int MAX_ID_LENGTH = 200;

  private static final Pattern SAFE = Pattern.compile("[a-zA-Z0-9_-]+");

  public JobNames {
    if (jobName == null || jobName.isBlank()) {
      throw new IllegalArgumentException(
          "jobName must be non-blank, was " + (jobName == null ? "null" : "'" + jobName + "'"));
    }
    if (id == null || !SAFE.matcher(id).matches() || id.length() > MAX_ID_LENGTH + 9) {
      throw new IllegalArgumentException("id must be [a-zA-Z0-9_-]+, was '" + id + "'");
    }
  }

  /** The names of the job called {@code jobName}. */
  public static JobNames of(String jobName) {
    if (jobName == null || jobName.isBlank()) {
      throw new IllegalArgumentException(
          "jobName must be non-blank, was " + (jobName == null ? "null" : "'" + jobName + "'"));
    }
    return new JobNames(jobName, sanitize(jobName));
  }

  /** The names of {@code job}. */
  public static JobNames of(JobSpec job) {
    return of(job.name());
  }

  static String sanitize(String name) {
    StringBuilder sb = new StringBuilder(Math.min(name.length(), MAX_ID_LENGTH));
    boolean changed = name.length() > MAX_ID_LENGTH;
    for (int i = 0; i < name.length() && sb.length() < MAX_ID_LENGTH; i++) {
      char c = name.charAt(i);
      boolean safe =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '_'
              || c == '-';
      sb.append(safe ? c : '_');
      changed |= !safe;
    }
    if (changed) {
      sb.append('-').append(String.format("%08x", fnv1a(name)));
    }
    return sb.toString();
  }

  /** 32-bit FNV-1a of the UTF-8 bytes: stable across JVMs and versions. */
  private static int fnv1a(String s) {
    int h = 0x811c9dc5;
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= 0x01000193;
    }
    return h;
  }

  // --- Hazelcast ---

  /** The default Hazelcast cluster name: {@code skewer-<id>}. */
  public String hazelcastClusterName() {
    return "skewer-" + id;
  }

  /** IMap of checkpoints: {@code skewer.<id>.checkpoints}. */
  public String checkpointsMap() {
    return "skewer." + id + ".checkpoints";
  }

  /**
   * IMap of the chunks of checkpoints larger than one chunk: {@code skewer.<id>.checkpoint-chunks}.
   */
  public String checkpointChunksMap() {
    return "skewer." + id + ".checkpoint-chunks";
  }

  /** IMap of fencing epochs: {@code skewer.<id>.epochs}. */
  public String epochsMap() {
    return "skewer." + id + ".epochs";
  }

  /**
   * IMap of the coordinators' global watermarks per partials partition (the frontier nodes adopt):
   * {@code skewer.<id>.frontier}.
   */
  public String frontierMap() {
    return "skewer." + id + ".frontier";
  }

  /** IMap of each partials partition's stage status (for the API): {@code skewer.<id>.stage}. */
  public String stageStatusMap() {
    return "skewer." + id + ".stage";
  }

  /** IMap mirroring the published hot-key table: {@code skewer.<id>.hotkeys}. */
  public String hotKeysMap() {
    return "skewer." + id + ".hotkeys";
  }

  /** IMap of the nodes' hot-key measurements: {@code skewer.<id>.hotkeys.reports}. */
  public String hotKeyReportsMap() {
    return "skewer." + id + ".hotkeys.reports";
  }

  // --- Kafka ---

  /** The default partials topic ({@code topics.partials}): {@code skewer.<id>.partials}. */
  public String partialsTopic() {
    return "skewer." + id + ".partials";
  }

  /** The default compacted checkpoint topic: {@code skewer.<id>.checkpoints}. */
  public String checkpointsTopic() {
    return "skewer." + id + ".checkpoints";
  }

  /** The compacted hot-key topic: {@code skewer.<id>.hotkeys}. */
  public String hotKeysTopic() {
    return "skewer." + id + ".hotkeys";
  }

  /** The default consumer group of the nodes: {@code skewer-<id>-nodes}. */
  public String nodesGroup() {
    return "skewer-" + id + "-nodes";
  }

  /** The default consumer group of the coordinators: {@code skewer-<id>-coordinators}. */
  public String coordinatorsGroup() {
    return "skewer-" + id + "-coordinators";
  }
}

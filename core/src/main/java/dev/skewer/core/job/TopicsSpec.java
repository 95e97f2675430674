package dev.skewer.core.job;

import java.util.HashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The Kafka topics of a job.
 *
 * @param events raw JSON events (input)
 * @param eventsPartitions partitions of {@code events} when Skewer creates it, in [1, 10000]
 * @param partials stage-1 to stage-2 messages; by default {@code skewer.<job>.partials} ({@link
 *     JobNames#partialsTopic()}), so two jobs never share it
 * @param partialsPartitions partitions of {@code partials}, in [1, 10000]
 * @param results final results, compacted, keyed {@code <key>@<windowStartMs>}
 * @param late events behind the watermark by more than the allowed lateness
 * @param dlq undecodable events, with the reason in a header
 * @param replicationFactor replication factor of created topics, in [1, 32]
 */
public record TopicsSpec(
    String events,
    int eventsPartitions,
    String partials,
    int partialsPartitions,
    String results,
    String late,
    String dlq,
    short replicationFactor) {

  public static final String DEFAULT_EVENTS = "events";
  public static final int DEFAULT_EVENTS_PARTITIONS = 4;
  public static final int DEFAULT_PARTIALS_PARTITIONS = 2;
  public static final String DEFAULT_RESULTS = "skewer.results";
  public static final String DEFAULT_LATE = "skewer.late";
  public static final String DEFAULT_DLQ = "skewer.dlq";
  public static final short DEFAULT_REPLICATION_FACTOR = 1;

  private static final Pattern LEGAL = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

  public TopicsSpec {
    topic("events", events);
    topic("partials", partials);
    topic("results", results);
    topic("late", late);
    topic("dlq", dlq);
    partitions("eventsPartitions", eventsPartitions);
    partitions("partialsPartitions", partialsPartitions);
    if (replicationFactor < 1 || replicationFactor > 32) {
      throw new JobSpecException(
          "replicationFactor", "must be in [1, 32], was " + replicationFactor);
    }
    Map<String, String> seen = new HashMap<>();
    String[][] all = {
      {"events", events}, {"partials", partials}, {"results", results}, {"late", late}, {"dlq", dlq}
    };
    for (String[] t : all) {
      String other = seen.putIfAbsent(t[1], t[0]);
      if (other != null) {
        throw new JobSpecException(t[0], "must differ from " + other + ", both are '" + t[1] + "'");
      }
    }
  }

  /** All defaults for the job called {@code jobName}. */
  public static TopicsSpec defaults(String jobName) {
    return new TopicsSpec(
        DEFAULT_EVENTS,
        DEFAULT_EVENTS_PARTITIONS,
        JobNames.of(jobName).partialsTopic(),
        DEFAULT_PARTIALS_PARTITIONS,
        DEFAULT_RESULTS,
        DEFAULT_LATE,
        DEFAULT_DLQ,
        DEFAULT_REPLICATION_FACTOR);
  }

  private static void topic(String field, String name) {
    Names.requireNonNull(field, name);
    if (!LEGAL.matcher(name).matches() || name.equals(".") || name.equals("..")) {
      throw new JobSpecException(
          field,
          "must be a legal Kafka topic name ([a-zA-Z0-9._-], 1 to 249 chars), was '" + name + "'");
    }
  }

  private static void partitions(String field, int n) {
    if (n < 1 || n > 10_000) {
      throw new JobSpecException(field, "must be in [1, 10000], was " + n);
    }
  }
}

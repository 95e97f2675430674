package dev.skewer.benchmarks.deployed;

import dev.skewer.core.job.JobNames;
import dev.skewer.core.job.JobSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;

/**
 * The topics of a benchmark's job, through an {@link Admin}: end offsets (records written so far)
 * and deletion after a run. Blocking.
 */
final class JobTopics {

  /** How long a topic just created may take to be hosted by the broker. */
  private static final Duration HOSTED_TIMEOUT = Duration.ofSeconds(30);

  private JobTopics() {}

  /**
   * Partition → end offset, for every partition of {@code topic}. A topic just created may not be
   * hosted yet (its partitions' logs and leaders follow the creation): retried for up to {@link
   * #HOSTED_TIMEOUT}.
   */
  static Map<Integer, Long> byPartition(Admin admin, String topic) throws Exception {
    long deadline = System.nanoTime() + HOSTED_TIMEOUT.toNanos();
    while (true) {
      try {
        return endOffsets(admin, topic);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof RetriableException) || System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(100);
      }
    }
  }

  private static Map<Integer, Long> endOffsets(Admin admin, String topic) throws Exception {
    var desc =
        admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
    Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
    desc.partitions()
        .forEach(p -> specs.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
    Map<Integer, Long> ends = new TreeMap<>();
    admin
        .listOffsets(specs)
        .all()
        .get(30, TimeUnit.SECONDS)
        .forEach((tp, info) -> ends.put(tp.partition(), info.offset()));
    return ends;
  }

  /** The sum of the end offsets of every partition of {@code topic}. */
  static long total(Admin admin, String topic) throws Exception {
    return byPartition(admin, topic).values().stream().mapToLong(Long::longValue).sum();
  }

  /**
   * Deletes the job's own topics (partials, results, late, DLQ, checkpoints, hot keys and, with
   * {@code events}, the events topic) that exist, so runs do not fill the disk; says so on failure.
   */
  static void delete(Admin admin, JobSpec job, boolean events) {
    JobNames names = JobNames.of(job);
    List<String> topics =
        new ArrayList<>(
            List.of(
                job.topics().partials(),
                job.topics().results(),
                job.topics().late(),
                job.topics().dlq(),
                names.checkpointsTopic(),
                names.hotKeysTopic()));
    if (events) {
      topics.add(job.topics().events());
    }
    try {
      Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
      List<String> delete = topics.stream().filter(existing::contains).toList();
      admin.deleteTopics(delete).all().get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      System.out.println("  (could not delete the run's topics: " + e + ")");
    }
  }
}

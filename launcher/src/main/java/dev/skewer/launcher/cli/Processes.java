package dev.skewer.launcher.cli;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.checkpoint.HazelcastCheckpointStore;
import dev.skewer.core.checkpoint.InMemoryCheckpointStore;
import dev.skewer.core.cluster.ClusterSettings;
import dev.skewer.core.cluster.HazelcastMembers;
import dev.skewer.core.job.JobNames;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.core.kafka.TopicProvisioner;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.admin.Admin;

/** Start-up and shutdown steps shared by the long-running commands. */
public final class Processes {

  private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(60);

  private Processes() {}

  /** Creates the job's missing topics (blocking). */
  public static void provision(KafkaSettings kafka, JobSpec job) {
    try (Admin admin = Admin.create(kafka.adminConfig())) {
      TopicProvisioner.ensureTopics(admin, job.topics(), ADMIN_TIMEOUT);
    }
  }

  /**
   * Checks that every topic in {@code topics} exists, creating nothing (blocking).
   *
   * @throws dev.skewer.core.kafka.MissingTopicException naming the missing ones
   */
  public static void requireTopics(KafkaSettings kafka, Collection<String> topics) {
    try (Admin admin = Admin.create(kafka.adminConfig())) {
      TopicProvisioner.requireTopics(admin, topics, ADMIN_TIMEOUT, "needed by this process");
    }
  }

  /** Starts this process's Hazelcast member, or returns null without one. */
  public static HazelcastInstance member(
      ClusterSettings cluster, String name, String role, JobSpec job) {
    if (cluster == null) {
      return null;
    }
    return HazelcastMembers.start(cluster, name, role, job.name());
  }

  /** The job's Hazelcast-backed checkpoints mirrored to Kafka; in-memory without a member. */
  public static CheckpointStore checkpoints(
      HazelcastInstance hz, KafkaSettings kafka, JobSpec job, String topic, boolean provision) {
    if (hz == null) {
      return new InMemoryCheckpointStore();
    }
    return HazelcastCheckpointStore.create(hz, kafka, JobNames.of(job), topic, provision);
  }

  /**
   * Blocks until the JVM is asked to stop (SIGTERM, Ctrl-C), then closes {@code resources} in
   * order.
   */
  public static void runUntilShutdown(AutoCloseable... resources) throws InterruptedException {
    CountDownLatch stopped = new CountDownLatch(1);
    CountDownLatch closed = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  stopped.countDown();
                  try {
                    closed.await();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                },
                "skewer-shutdown"));
    stopped.await();
    try {
      for (AutoCloseable r : resources) {
        if (r != null) {
          try {
            r.close();
          } catch (Exception e) {
            System.err.println("close failed: " + e);
          }
        }
      }
    } finally {
      closed.countDown();
    }
  }
}

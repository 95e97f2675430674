package dev.skewer.launcher.cli;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.core.cluster.ClusterSettings;
import dev.skewer.core.cluster.HazelcastMembers;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.core.kafka.TopicProvisioner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.admin.Admin;

/** Start-up and shutdown steps shared by the long-running commands. */
public final class Processes {

  private Processes() {}

  /** Creates the job's missing topics (blocking). */
  public static void provision(KafkaSettings kafka, JobSpec job) {
    try (Admin admin = Admin.create(kafka.adminConfig())) {
      TopicProvisioner.ensureTopics(admin, job.topics(), Duration.ofSeconds(60));
    }
  }

  /** Starts this process's Hazelcast member, or returns null when the port is 0. */
  static HazelcastInstance member(CommonOptions o, String name, String role) {
    if (o.hazelcastPort <= 0) {
      return null;
    }
    List<String> members = new ArrayList<>(o.hazelcastMembers);
    String self = ClusterSettings.DEFAULT_HOST + ":" + o.hazelcastPort;
    if (!members.contains(self)) {
      members.add(self);
    }
    return HazelcastMembers.start(
        ClusterSettings.loopback(ClusterSettings.DEFAULT_CLUSTER_NAME, o.hazelcastPort, members),
        name,
        role);
  }

  /** Hazelcast-backed checkpoints mirrored to Kafka; in-memory when running without a member. */
  static dev.skewer.core.checkpoint.CheckpointStore checkpoints(
      HazelcastInstance hz, KafkaSettings kafka, CommonOptions o) {
    if (hz == null) {
      return new dev.skewer.core.checkpoint.InMemoryCheckpointStore();
    }
    return dev.skewer.core.checkpoint.HazelcastCheckpointStore.create(hz, kafka, o.checkpointTopic);
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

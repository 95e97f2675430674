package dev.skewer.launcher.cli;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.checkpoint.HazelcastCheckpointStore;
import dev.skewer.core.checkpoint.InMemoryCheckpointStore;
import dev.skewer.core.cluster.ClusterSettings;
import dev.skewer.core.cluster.DeadMemberEviction;
import dev.skewer.core.cluster.HazelcastMembers;
import dev.skewer.core.job.JobNames;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.core.kafka.TopicProvisioner;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Start-up and shutdown steps shared by the long-running commands. Each start-up step logs, at
 * INFO, how long it took and the JVM's uptime when it ended ({@code start-up: ... (JVM up N ms)}),
 * so a process's way to ready can be read off its log.
 */
public final class Processes {

  private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(60);
  private static final Logger LOG = LoggerFactory.getLogger(Processes.class);

  private Processes() {}

  /** Creates the job's missing topics (blocking). */
  public static void provision(KafkaSettings kafka, JobSpec job) {
    long startNs = System.nanoTime();
    try (Admin admin = Admin.create(kafka.adminConfig())) {
      TopicProvisioner.ensureTopics(admin, job.topics(), ADMIN_TIMEOUT);
    }
    logStep("topics provisioned", startNs);
  }

  /**
   * Checks that every topic in {@code topics} exists, creating nothing (blocking).
   *
   * @throws dev.skewer.core.kafka.MissingTopicException naming the missing ones
   */
  public static void requireTopics(KafkaSettings kafka, Collection<String> topics) {
    long startNs = System.nanoTime();
    try (Admin admin = Admin.create(kafka.adminConfig())) {
      TopicProvisioner.requireTopics(admin, topics, ADMIN_TIMEOUT, "needed by this process");
    }
    logStep("topics checked", startNs);
  }

  /**
   * Starts a start-up step on a thread of its own, so that it overlaps with the steps that do not
   * depend on it (the job's topics while the Hazelcast member joins its cluster); {@link #await} it
   * before the first step that does.
   */
  public static CompletableFuture<Void> inBackground(String step, Runnable work) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    Thread thread =
        new Thread(
            () -> {
              try {
                work.run();
                done.complete(null);
              } catch (Throwable e) {
                done.completeExceptionally(e);
              }
            },
            "skewer-start-up-" + step);
    thread.setDaemon(true);
    thread.start();
    return done;
  }

  /**
   * Waits for a step started {@link #inBackground}. When it failed, what was started meanwhile is
   * closed (quietly, in order) and its failure thrown as it was thrown there.
   */
  public static void await(CompletableFuture<Void> step, AutoCloseable... startedMeanwhile)
      throws Exception {
    try {
      step.get();
    } catch (ExecutionException e) {
      for (AutoCloseable started : startedMeanwhile) {
        closeQuietly(started);
      }
      if (e.getCause() instanceof Exception cause) {
        throw cause;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw e;
    }
  }

  /** Shuts the member down when closed; null without one. */
  public static AutoCloseable stopping(HazelcastInstance hz) {
    return hz == null ? null : hz::shutdown;
  }

  private static void closeQuietly(AutoCloseable resource) {
    if (resource == null) {
      return;
    }
    try {
      resource.close();
    } catch (Exception e) {
      LOG.debug("closing {} after a failed start-up step failed", resource, e);
    }
  }

  /** Starts this process's Hazelcast member, or returns null without one. */
  public static HazelcastInstance member(
      ClusterSettings cluster, String name, String role, JobSpec job) {
    if (cluster == null) {
      return null;
    }
    long startNs = System.nanoTime();
    HazelcastInstance hz = HazelcastMembers.start(cluster, name, role, job.name());
    logStep("Hazelcast member in a cluster of " + hz.getCluster().getMembers().size(), startNs);
    return hz;
  }

  /**
   * Removes a process of this role from {@code groupId} as soon as Hazelcast sees it leave ({@link
   * DeadMemberEviction}); null without a member.
   */
  public static AutoCloseable evictDeadMembers(
      HazelcastInstance hz, KafkaSettings kafka, String groupId, String role, JobSpec job) {
    if (hz == null) {
      return null;
    }
    return DeadMemberEviction.start(
        hz, Admin.create(kafka.adminConfig()), groupId, role, job.name());
  }

  /**
   * The job's Hazelcast-backed checkpoints mirrored to Kafka, chunked above {@code chunkBytes};
   * in-memory without a member.
   */
  public static CheckpointStore checkpoints(
      HazelcastInstance hz,
      KafkaSettings kafka,
      JobSpec job,
      String topic,
      boolean provision,
      int chunkBytes) {
    if (hz == null) {
      return new InMemoryCheckpointStore();
    }
    long startNs = System.nanoTime();
    CheckpointStore store =
        HazelcastCheckpointStore.create(hz, kafka, JobNames.of(job), topic, provision, chunkBytes);
    logStep("checkpoint store", startNs);
    return store;
  }

  /**
   * Logs that a start-up step ended: {@code start-up: <step> in <ms> ms (JVM up <ms> ms)}; the
   * runtimes' own start is logged the same way by the commands.
   */
  public static void logStep(String step, long startNs) {
    LOG.info(
        "start-up: {} in {} ms (JVM up {} ms)",
        step,
        (System.nanoTime() - startNs) / 1_000_000,
        ManagementFactory.getRuntimeMXBean().getUptime());
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

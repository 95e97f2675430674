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
import java.util.concurrent.Callable;
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
   * depend on it (the Kafka side of the start — topics, the checkpoint topic and its producer, what
   * the stage asks the broker — while the Hazelcast member joins its cluster); {@link #await} it
   * before the first step that needs its result.
   */
  public static <T> CompletableFuture<T> inBackground(String step, Callable<T> work) {
    CompletableFuture<T> done = new CompletableFuture<>();
    Thread thread =
        new Thread(
            () -> {
              try {
                done.complete(work.call());
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
   * Waits for a step started {@link #inBackground} and returns its result. When it failed, what was
   * started meanwhile is closed (quietly, in order) and its failure thrown as it was thrown there.
   */
  public static <T> T await(CompletableFuture<T> step, AutoCloseable... startedMeanwhile)
      throws Exception {
    try {
      return step.get();
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

  /**
   * What a process's start needs from Kafka and nothing from Hazelcast: the checkpoint store's
   * mirror (null without a cluster) and what the stage asks the broker before it subscribes.
   */
  public record KafkaSide<F>(HazelcastCheckpointStore.Mirror mirror, F facts) {}

  /**
   * Starts the Kafka side of a process's start {@link #inBackground}, to overlap the Hazelcast
   * member's join: the job's missing topics created (when {@code provision}; without it the caller
   * has checked them already), then the checkpoint topic and its producer ({@link
   * #checkpointMirror}), then {@code facts} (logged as the step {@code factsStep}). When a step
   * fails, the mirror made before it is closed.
   */
  public static <F> CompletableFuture<KafkaSide<F>> kafkaSideInBackground(
      KafkaSettings kafka,
      JobSpec job,
      boolean provision,
      ClusterSettings cluster,
      String checkpointTopic,
      int chunkBytes,
      String owner,
      String factsStep,
      Callable<F> facts) {
    return inBackground(
        "kafka",
        () -> {
          if (provision) {
            provision(kafka, job);
          }
          HazelcastCheckpointStore.Mirror mirror =
              checkpointMirror(cluster, kafka, checkpointTopic, provision, chunkBytes, owner);
          try {
            long startNs = System.nanoTime();
            F read = facts.call();
            logStep(factsStep, startNs);
            return new KafkaSide<>(mirror, read);
          } catch (Exception | Error e) {
            closeQuietly(mirror);
            throw e;
          }
        });
  }

  /**
   * Closes, once it is done, what a step started {@link #inBackground} made (quietly; nothing when
   * the step failed): for a step that another step's failure must not leave running.
   */
  public static AutoCloseable closingWhenDone(CompletableFuture<? extends AutoCloseable> step) {
    return () -> {
      try {
        closeQuietly(step.get());
      } catch (ExecutionException e) {
        LOG.debug("a start-up step failed and made nothing to close", e);
      }
    };
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
   * The Kafka side of the job's checkpoint store (blocking): {@code topic} checked, or created when
   * {@code provision}, and the producer that mirrors checkpoints to it, named after {@code owner};
   * null without a cluster (checkpoints then stay in memory). Needs no Hazelcast member, so it is
   * made while the member joins.
   */
  public static HazelcastCheckpointStore.Mirror checkpointMirror(
      ClusterSettings cluster,
      KafkaSettings kafka,
      String topic,
      boolean provision,
      int chunkBytes,
      String owner) {
    if (cluster == null) {
      return null;
    }
    long startNs = System.nanoTime();
    HazelcastCheckpointStore.Mirror mirror =
        HazelcastCheckpointStore.mirror(kafka, topic, provision, chunkBytes, owner);
    logStep("checkpoint topic and producer", startNs);
    return mirror;
  }

  /**
   * The job's Hazelcast-backed checkpoints mirrored to Kafka through {@code mirror} ({@link
   * #checkpointMirror}); in-memory without a member.
   */
  public static CheckpointStore checkpoints(
      HazelcastInstance hz, JobSpec job, HazelcastCheckpointStore.Mirror mirror) {
    if (hz == null) {
      return new InMemoryCheckpointStore();
    }
    long startNs = System.nanoTime();
    CheckpointStore store = HazelcastCheckpointStore.create(hz, JobNames.of(job), mirror);
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

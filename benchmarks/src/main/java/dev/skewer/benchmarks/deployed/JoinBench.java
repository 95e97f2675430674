package dev.skewer.benchmarks.deployed;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.core.cluster.ClusterSettings;
import dev.skewer.core.cluster.HazelcastMembers;
import dev.skewer.core.net.FreePorts;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code skewer bench join}: how long Skewer's Hazelcast members take to form a cluster when they
 * start together (each {@link HazelcastMembers#start} timed, members listing each other on
 * loopback), with the TCP-IP join timeout and the master's wait before answering joins given.
 * Members run in this JVM, so JVM start-up and class loading are excluded after the first run: what
 * remains is the join protocol's own waiting.
 */
@Command(
    name = "join",
    mixinStandardHelpOptions = true,
    description =
        "Time for Skewer's Hazelcast members started together to form a cluster (in this JVM).")
public final class JoinBench implements Callable<Integer> {

  @Option(
      names = "--members",
      defaultValue = "3",
      description = "Members. Default: ${DEFAULT-VALUE}.")
  int members;

  @Option(
      names = "--runs",
      defaultValue = "5",
      description = "Timed runs after one warm-up. Default: ${DEFAULT-VALUE}.")
  int runs;

  @Option(
      names = "--join-timeout",
      description =
          "Seconds a member looks for a master before claiming mastership (sets -D"
              + HazelcastMembers.JOIN_TIMEOUT_PROPERTY
              + "). Default: Skewer's.")
  Integer joinTimeoutSeconds;

  @Option(
      names = "--wait-before-join",
      description =
          "Seconds the master waits to batch join requests (sets"
              + " -Dhazelcast.wait.seconds.before.join). Default: Skewer's.")
  Integer waitBeforeJoinSeconds;

  @Option(
      names = "--stagger-ms",
      defaultValue = "0",
      description = "Delay between the members' starts. Default: ${DEFAULT-VALUE}.")
  long staggerMs;

  @Override
  public Integer call() throws Exception {
    if (joinTimeoutSeconds != null) {
      System.setProperty(HazelcastMembers.JOIN_TIMEOUT_PROPERTY, joinTimeoutSeconds.toString());
    }
    if (waitBeforeJoinSeconds != null) {
      System.setProperty("hazelcast.wait.seconds.before.join", waitBeforeJoinSeconds.toString());
    }
    System.setProperty("hazelcast.logging.type", "none");
    List<Double> slowest = new ArrayList<>();
    for (int run = 0; run <= runs; run++) {
      List<Double> each = startTogether("skewer-join-bench-" + run);
      double max = each.get(each.size() - 1);
      if (run == 0) {
        System.out.printf("warm-up: %s s%n", format(each));
      } else {
        slowest.add(max);
        System.out.printf(
            "run %d: members' start returned after %s s, one cluster of all (last) (load average"
                + " %.2f)%n",
            run, format(each), Stats.loadAverage());
      }
    }
    System.out.printf(
        "%d members started %s, join timeout %s s, wait before join %s s: one cluster of all"
            + " after %s s (median [min–max] of %d)%n",
        members,
        staggerMs == 0 ? "together" : staggerMs + " ms apart",
        joinTimeoutSeconds == null ? HazelcastMembers.JOIN_TIMEOUT_SECONDS : joinTimeoutSeconds,
        waitBeforeJoinSeconds == null ? "Skewer's" : waitBeforeJoinSeconds,
        Stats.medianRange(slowest, "%.2f"),
        slowest.size());
    return 0;
  }

  private List<Double> startTogether(String clusterName) throws Exception {
    List<Integer> ports = new ArrayList<>();
    List<String> list = new ArrayList<>();
    for (int i = 0; i < members; i++) {
      int port = FreePorts.next();
      ports.add(port);
      list.add("127.0.0.1:" + port);
    }
    ExecutorService pool = Executors.newFixedThreadPool(members);
    List<CompletableFuture<HazelcastInstance>> started = new ArrayList<>();
    List<Double> seconds = new ArrayList<>();
    try {
      long t0 = System.nanoTime();
      List<CompletableFuture<Double>> times = new ArrayList<>();
      for (int i = 0; i < members; i++) {
        int index = i;
        CompletableFuture<HazelcastInstance> hz =
            CompletableFuture.supplyAsync(
                () -> {
                  sleep(index * staggerMs);
                  return HazelcastMembers.start(
                      ClusterSettings.loopback(clusterName, ports.get(index), list),
                      "member-" + index,
                      "bench");
                },
                pool);
        started.add(hz);
        times.add(hz.thenApply(h -> (System.nanoTime() - t0) / 1e9));
      }
      for (CompletableFuture<Double> t : times) {
        seconds.add(t.get(5, TimeUnit.MINUTES));
      }
      // start() returns once a member is in a cluster; the cluster may still be growing
      while (true) {
        boolean full = true;
        for (CompletableFuture<HazelcastInstance> hz : started) {
          full &= hz.get().getCluster().getMembers().size() == members;
        }
        if (full) {
          break;
        }
        if (System.nanoTime() - t0 > TimeUnit.MINUTES.toNanos(5)) {
          throw new IllegalStateException("the members did not form one cluster in 5 minutes");
        }
        Thread.sleep(10);
      }
      seconds.add((System.nanoTime() - t0) / 1e9);
    } finally {
      for (CompletableFuture<HazelcastInstance> hz : started) {
        hz.thenAccept(h -> h.getLifecycleService().terminate());
      }
      pool.shutdown();
      pool.awaitTermination(1, TimeUnit.MINUTES);
    }
    return seconds;
  }

  private static String format(List<Double> seconds) {
    StringBuilder sb = new StringBuilder();
    for (double s : seconds) {
      sb.append(sb.length() == 0 ? "" : ", ").append(String.format("%.2f", s));
    }
    return sb.toString();
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

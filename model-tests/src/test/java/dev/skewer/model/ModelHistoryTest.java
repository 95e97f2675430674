package dev.skewer.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The model-based randomized test: {@code skewer.model.histories} generated histories (seeds {@code
 * skewer.model.seed} on, each played {@code skewer.model.repeat} times), {@code
 * skewer.model.parallelism} at a time, each played through the real node and coordinator runtimes
 * with its failures and once without, each checked against every contract ({@link Contracts}). A
 * failure names the seed, the broken contracts, the state at the end, the history and the command
 * that replays it. See docs/testing.md.
 */
class ModelHistoryTest {

  private static final Logger LOG = LoggerFactory.getLogger(ModelHistoryTest.class);
  private static Vertx vertx;

  @BeforeAll
  static void startVertx() {
    vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(4).setWorkerPoolSize(8));
  }

  @AfterAll
  static void closeVertx() throws Exception {
    vertx.close().await(30, TimeUnit.SECONDS);
  }

  @Test
  void shouldKeepEveryContractInEveryGeneratedHistory() throws Exception {
    int histories = Integer.getInteger("skewer.model.histories", 100);
    long first = Long.getLong("skewer.model.seed", 1);
    int repeat = Integer.getInteger("skewer.model.repeat", 1);
    int parallelism = Integer.getInteger("skewer.model.parallelism", 4);
    long started = System.nanoTime();
    long cpuStarted = cpuNanos();
    ExecutorService pool = Executors.newFixedThreadPool(parallelism);
    List<Future<ModelRun.Outcome>> runs = new ArrayList<>();
    try {
      for (long i = 0; i < (long) histories * repeat; i++) {
        long seed = first + i / repeat;
        runs.add(pool.submit(() -> ModelRun.run(seed, vertx)));
      }
      List<ModelRun.Outcome> outcomes = new ArrayList<>();
      for (Future<ModelRun.Outcome> run : runs) {
        ModelRun.Outcome o = run.get();
        outcomes.add(o);
        if (!o.passed()) {
          LOG.error("history {} failed:\n{}", o.history().seed(), report(o));
        }
      }
      summarize(outcomes, first, histories, started, cpuStarted);
      List<ModelRun.Outcome> failed = outcomes.stream().filter(o -> !o.passed()).toList();
      StringBuilder message = new StringBuilder();
      for (ModelRun.Outcome o : failed) {
        message.append(report(o)).append('\n');
      }
      assertThat(failed).as(message.toString()).isEmpty();
    } finally {
      pool.shutdownNow();
    }
  }

  private static void summarize(
      List<ModelRun.Outcome> outcomes, long first, int histories, long started, long cpuStarted) {
    LOG.warn(
        "{} histories (seeds {}..{}): {} events, {} failures injected, {} with a partition adopting"
            + " the frontier, {} compared with their failure-free run; {} s ({} s of CPU);"
            + " slowest {}; {} failed",
        outcomes.size(),
        first,
        first + histories - 1,
        outcomes.stream().mapToLong(ModelRun.Outcome::events).sum(),
        outcomes.stream().mapToLong(o -> o.history().faults()).sum(),
        outcomes.stream().filter(o -> o.adoptions() > 0).count(),
        outcomes.stream().filter(ModelRun.Outcome::compared).count(),
        (System.nanoTime() - started) / 1_000_000_000L,
        (cpuNanos() - cpuStarted) / 1_000_000_000L,
        outcomes.stream()
            .sorted(Comparator.comparingLong(ModelRun.Outcome::millis).reversed())
            .limit(3)
            .map(o -> "seed " + o.history().seed() + " " + o.millis() + " ms")
            .toList(),
        outcomes.stream().filter(o -> !o.passed()).count());
    Map<String, Long> counted = new TreeMap<>();
    outcomes.forEach(o -> o.metrics().forEach((k, v) -> counted.merge(k, v, Long::sum)));
    LOG.warn("the runtimes, over all plays with failures: {}", counted);
    LOG.warn(
        "time per kind of step (ms, all plays): {}",
        Cluster.TIME.entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue().get() / 1_000_000)
            .toList());
  }

  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  static String report(ModelRun.Outcome o) {
    long seed = o.history().seed();
    return "seed "
        + seed
        + " broke "
        + o.violations().size()
        + " contract(s):\n  "
        + String.join("\n  ", o.violations())
        + "\nreplay: ./mvnw -B -pl model-tests verify -Dtest=ModelHistoryTest"
        + " -Dskewer.model.seed="
        + seed
        + " -Dskewer.model.histories=1 (-Dskewer.model.repeat=20 -Dskewer.model.trace=true)\n"
        + o.history().describe();
  }
}

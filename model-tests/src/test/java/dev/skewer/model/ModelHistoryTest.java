package dev.skewer.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The model-based randomized test: {@code skewer.model.histories} generated histories (seeds {@code
 * skewer.model.seed} on), each played through the real node and coordinator runtimes with failures
 * and once without, each checked against every contract ({@link Contracts}). A failure names the
 * seed, the broken contracts, the history, and the command that replays it.
 */
class ModelHistoryTest {

  private static final Logger LOG = LoggerFactory.getLogger(ModelHistoryTest.class);
  private static Vertx vertx;

  @BeforeAll
  static void startVertx() {
    vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2).setWorkerPoolSize(4));
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
    List<ModelRun.Outcome> failed = new ArrayList<>();
    List<ModelRun.Outcome> slowest = new ArrayList<>();
    long events = 0;
    long faults = 0;
    long started = System.nanoTime();
    for (long i = 0; i < (long) histories * repeat; i++) {
      long seed = first + i / repeat;
      ModelRun.Outcome o = ModelRun.run(seed, vertx);
      events += o.events();
      slowest.add(o);
      slowest.sort((a, b) -> Long.compare(b.millis(), a.millis()));
      if (slowest.size() > 5) {
        slowest.remove(5);
      }
      faults += o.history().faults();
      if (!o.passed()) {
        failed.add(o);
        LOG.error("history {} failed:\n{}", seed, report(o));
      }
    }
    long seconds = (System.nanoTime() - started) / 1_000_000_000L;
    LOG.warn(
        "{} histories (seeds {}..{}), {} events, {} failures injected, {} s; {} failed",
        histories,
        first,
        first + histories - 1,
        events,
        faults,
        seconds,
        failed.size());
    LOG.warn(
        "slowest: {}",
        slowest.stream()
            .map(o -> "seed " + o.history().seed() + " " + o.millis() + " ms")
            .toList());
    StringBuilder message = new StringBuilder();
    for (ModelRun.Outcome o : failed) {
      message.append(report(o)).append('\n');
    }
    assertThat(failed).as(message.toString()).isEmpty();
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

package dev.skewer.model;

import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs one history twice — as generated, then without its failures — through fresh {@link
 * Cluster}s, and checks the {@link Contracts}.
 */
final class ModelRun {

  /** What one history did and which contracts it broke. */
  record Outcome(
      History history,
      List<String> violations,
      int adoptions,
      boolean compared,
      long events,
      long late,
      long dlq,
      long results,
      Map<String, Long> metrics,
      long millis) {

    boolean passed() {
      return violations.isEmpty();
    }
  }

  private ModelRun() {}

  static Outcome run(long seed, Vertx vertx) throws Exception {
    return run(HistoryGenerator.generate(seed), vertx);
  }

  static Outcome run(History history, Vertx vertx) throws Exception {
    long start = System.nanoTime();
    Observed run;
    Observed baseline;
    try {
      run = play(history, vertx, null);
    } catch (Exception e) {
      return failed(history, "liveness: " + stuck(e), start);
    }
    try {
      baseline = history.faults() == 0 ? null : play(history.withoutFaults(), vertx, run);
    } catch (Exception e) {
      return failed(history, "(failure-free run) liveness: " + stuck(e), start);
    }
    List<String> violations = new ArrayList<>(Contracts.check(history, run, baseline));
    if (!violations.isEmpty()) {
      violations.add("state at the end:\n" + run.diagnostics());
    }
    if (baseline != null) {
      List<String> own = Contracts.check(history.withoutFaults(), baseline, null);
      for (String v : own) {
        violations.add("(failure-free run) " + v);
      }
      if (!own.isEmpty()) {
        violations.add("(failure-free run) state at the end:\n" + baseline.diagnostics());
      }
    }
    return new Outcome(
        history,
        violations,
        run.adoptions().values().stream().mapToInt(Map::size).sum(),
        baseline != null && baseline.adoptions().equals(run.adoptions()),
        history.events().size(),
        run.late().size(),
        run.dlq().size(),
        run.results().values().stream().mapToLong(List::size).sum(),
        run.metrics(),
        (System.nanoTime() - start) / 1_000_000);
  }

  private static String stuck(Exception e) {
    return e instanceof Cluster.StuckException ? e.getMessage() : "the history failed: " + e;
  }

  private static Outcome failed(History history, String violation, long startNs) {
    return new Outcome(
        history,
        List.of(violation),
        0,
        false,
        history.events().size(),
        0,
        0,
        0,
        Map.of(),
        (System.nanoTime() - startNs) / 1_000_000);
  }

  private static Observed play(History history, Vertx vertx, Observed original) throws Exception {
    Cluster cluster = new Cluster(history, vertx, original == null ? null : original.pushed());
    String diagnostics;
    try {
      long t0 = System.nanoTime();
      cluster.start();
      Cluster.time("start", t0);
      cluster.run();
    } finally {
      long t0 = System.nanoTime();
      diagnostics = cluster.diagnostics();
      if (Boolean.getBoolean("skewer.model.trace")) {
        diagnostics += "trace:\n  " + String.join("\n  ", cluster.broker.trace()) + "\n";
      }
      cluster.close();
      Cluster.time("close", t0);
    }
    return Observed.of(
        cluster.broker, cluster.pushed, cluster.adoptions(), cluster.metrics, diagnostics);
  }
}

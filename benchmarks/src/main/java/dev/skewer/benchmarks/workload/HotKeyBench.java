package dev.skewer.benchmarks.workload;

import dev.skewer.coordinator.hotkey.FanoutPolicy;
import dev.skewer.core.hotkey.HotKey;
import dev.skewer.core.hotkey.HotKeyTable;
import dev.skewer.core.hotkey.SaltRouter;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.window.SliceAssigner;
import dev.skewer.launcher.cli.JobResources;
import dev.skewer.loadgen.workload.WorkloadSpec;
import dev.skewer.node.aggregate.PartitionAggregator;
import dev.skewer.node.hotkey.HotKeyDetector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code skewer bench hotkeys}: per-node load imbalance (max/mean events per node, one node per
 * partition) for the skew sweep W3, W2 and the burst, under plain hashing, two-choices, and salting
 * (a static table from exact counts, and the dynamic detection → policy → table loop in simulated
 * time); then the node aggregation's sustained throughput with the 50% hot key vs a uniform
 * workload. No Kafka: imbalance is a count.
 */
@Command(
    name = "hotkeys",
    mixinStandardHelpOptions = true,
    description = "Hot keys: per-node imbalance (plain, two-choices, salting) and throughput.")
public final class HotKeyBench implements Callable<Integer> {

  @Option(
      names = "--events",
      defaultValue = "2000000",
      description =
          "Events per workload (100,000 per simulated second). Default: ${DEFAULT-VALUE}.")
  int events;

  @Option(
      names = "--burst-events",
      defaultValue = "4000000",
      description =
          "Events of the burst workload (40 s, so the fall-back shows; 0 skips it). Default:"
              + " ${DEFAULT-VALUE}.")
  int burstEvents;

  @Option(
      names = "--events-per-second",
      defaultValue = "100000",
      description =
          "Events per simulated second (W1's 100,000; a real cluster's rate to compare with bench"
              + " imbalance). Default: ${DEFAULT-VALUE}.")
  long eventsPerSecond;

  @Option(
      names = "--partitions",
      defaultValue = "8",
      description = "Partitions = nodes. Default: ${DEFAULT-VALUE}.")
  int partitions;

  @Option(
      names = "--seed",
      defaultValue = "1",
      description = "Workload seed. Default: ${DEFAULT-VALUE}.")
  long seed;

  @Option(
      names = "--target-share",
      defaultValue = "0.0078125",
      description =
          "Policy target per sub-key as a share of the mean partition rate. Default: ${DEFAULT-VALUE} (1/128).")
  double targetShare;

  @Option(
      names = "--min-rate",
      defaultValue = "100",
      description =
          "Policy floor of the target per sub-key, events per (simulated) second (the"
              + " coordinator's --hot-key-min-rate). Default: ${DEFAULT-VALUE}.")
  double minRate;

  @Option(
      names = "--quiet-s",
      defaultValue = "5",
      description = "Policy quiet period, seconds. Default: ${DEFAULT-VALUE}.")
  long quietSeconds;

  @Option(
      names = "--tick-ms",
      defaultValue = "250",
      description =
          "Detection/decision tick (the table applies one tick later). Default: ${DEFAULT-VALUE}.")
  long tickMs;

  @Option(
      names = "--throughput-events",
      defaultValue = "2000000",
      description = "Events per throughput run (0 skips). Default: ${DEFAULT-VALUE}.")
  int throughputEvents;

  @Option(
      names = "--runs",
      defaultValue = "3",
      description = "Throughput runs after one warm-up. Default: ${DEFAULT-VALUE}.")
  int runs;

  @Override
  public Integer call() {
    FanoutPolicy.Config policyConfig =
        FanoutPolicy.Config.defaults()
            .withTargetShare(targetShare)
            .withMinTargetRate(minRate)
            .withQuietPeriod(Duration.ofSeconds(quietSeconds));
    HotKeyDetector.Config detectorConfig = HotKeyDetector.Config.defaults();
    System.out.printf(
        "Hot keys: %d partitions = %d nodes, seed %d, %,d events per simulated second;"
            + " policy target %.5f of the mean partition rate (min %.0f ev/s), lower ratio %.2f, quiet %d s;"
            + " detector %d x %d ms buckets, %d counters, min share %.3f; tick %d ms.%n",
        partitions,
        partitions,
        seed,
        eventsPerSecond,
        policyConfig.targetShare(),
        policyConfig.minTargetRate(),
        policyConfig.lowerRatio(),
        quietSeconds,
        detectorConfig.buckets(),
        detectorConfig.bucket().toMillis(),
        detectorConfig.capacity(),
        detectorConfig.minShare(),
        tickMs);
    System.out.printf(
        "JVM %s, max heap %d MB, %d cores.%n%n",
        Runtime.version(),
        Runtime.getRuntime().maxMemory() >> 20,
        Runtime.getRuntime().availableProcessors());
    List<WorkloadSpec> specs = new ArrayList<>();
    specs.add(WorkloadSpec.w3(events, seed, 0.8));
    specs.add(WorkloadSpec.w3(events, seed, 1.1));
    specs.add(WorkloadSpec.w3(events, seed, 1.5));
    specs.add(WorkloadSpec.w3(events, seed, 2.0));
    specs.add(WorkloadSpec.w2(events, seed));
    if (burstEvents > 0) {
      specs.add(WorkloadSpec.burst(burstEvents, seed));
    }
    specs.replaceAll(spec -> spec.withTime(spec.startMs(), eventsPerSecond));
    HotKeySimulation sim = new HotKeySimulation(partitions);
    System.out.printf(
        "%-10s %7s %7s %8s %8s %8s %6s %9s  %s%n",
        "workload",
        "plain",
        "2-choice",
        "static",
        "dynamic",
        "dyn>=2s",
        "table",
        "detected",
        "burst");
    boolean ok = true;
    double worst = 0;
    for (WorkloadSpec spec : specs) {
      HotKeyEvents e = HotKeyEvents.generate(spec);
      double plain = sim.plain(e).maxOverMean();
      double two = sim.twoChoices(e).maxOverMean();
      HotKeyTable table = sim.staticTable(e, targetShare, policyConfig.minTargetRate());
      double stat = sim.salted(e, table).maxOverMean();
      String burstKey = spec.burstShare() > 0 ? spec.burstKey() : null;
      HotKeySimulation.Dynamic dyn =
          sim.dynamic(e, policyConfig, detectorConfig, tickMs, 2_000, burstKey);
      List<String> required = sharesAtLeast(e, 1.0 / (10 * partitions));
      long detected = required.stream().filter(dyn.everHot()::contains).count();
      String burst =
          burstKey == null
              ? ""
              : String.format(
                  "%s salted %.2f s after the burst started, back to fanout 1 %.1f s after it started (it lasts %d s)",
                  burstKey,
                  dyn.burstSaltedAfterMs() / 1000.0,
                  dyn.burstFellBackAfterMs() / 1000.0,
                  spec.burstDurationMs() / 1000);
      System.out.printf(
          "%-10s %7.2f %7.2f %8.3f %8.3f %8.3f %6d %5d/%-3d  %s%n",
          spec.name(),
          plain,
          two,
          stat,
          dyn.whole().maxOverMean(),
          dyn.steady().maxOverMean(),
          dyn.maxTableSize(),
          detected,
          required.size(),
          burst);
      worst = Math.max(worst, Math.max(stat, dyn.steady().maxOverMean()));
      ok &= detected == required.size();
      if (burstKey != null) {
        ok &= dyn.burstSaltedAfterMs() >= 0 && dyn.burstSaltedAfterMs() <= 10_000;
      }
    }
    System.out.printf(
        "%nplain/2-choice/static/dynamic: max/mean events per node over the whole run;"
            + " dyn>=2s: the dynamic loop after its first 2 simulated seconds; table: largest hot-key table;"
            + " detected: keys with share >= 1/(10P) that the dynamic loop salted / all such keys.%n");
    System.out.printf(
        "worst salted max/mean (static, dynamic after 2 s): %.3f (target <= 1.10)%n", worst);
    if (throughputEvents > 0) {
      throughput(policyConfig);
    }
    System.out.println(
        ok
            ? "check: every key with share >= 1/(10P) detected; burst salted within 10 s"
            : "check: FAILED (see above)");
    return ok ? 0 : 1;
  }

  private static List<String> sharesAtLeast(HotKeyEvents e, double share) {
    Map<String, long[]> counts = new HashMap<>();
    for (int i = 0; i < e.n; i++) {
      counts.computeIfAbsent(e.key[i], k -> new long[1])[0]++;
    }
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, long[]> c : counts.entrySet()) {
      if (c.getValue()[0] >= share * e.n) {
        out.add(c.getKey());
      }
    }
    return out;
  }

  /**
   * Sustained throughput of the node aggregation: each node's events through its own {@link
   * PartitionAggregator} (W1's job: count, sum, HLL, t-digest), timed per node; the cluster's
   * sustained rate is all events over the slowest node's time (nodes run in parallel).
   */
  private void throughput(FanoutPolicy.Config policyConfig) {
    JobSpec job = JobResources.load("w1.yaml");
    HotKeySimulation sim = new HotKeySimulation(partitions);
    HotKeyEvents uniform =
        HotKeyEvents.generate(
            WorkloadSpec.w1(throughputEvents, seed).withName("uniform").withZipfS(0));
    HotKeyEvents hot = HotKeyEvents.generate(WorkloadSpec.w2(throughputEvents, seed));
    HotKeyTable hotTable = sim.staticTable(hot, targetShare, policyConfig.minTargetRate());
    int[] uniformNodes = nodes(sim, uniform, HotKeyTable.EMPTY);
    int[] hotSalted = nodes(sim, hot, hotTable);
    int[] hotPlain = nodes(sim, hot, HotKeyTable.EMPTY);
    System.out.printf(
        "%nThroughput of the node aggregation (%,d events, W1 job, one node after another, GC before each;"
            + " cluster = events / slowest node's time (nodes run in parallel); total = events / sum of node times):%n",
        throughputEvents);
    List<double[]> u = new ArrayList<>();
    List<double[]> hs = new ArrayList<>();
    List<double[]> hp = new ArrayList<>();
    double detectorNs = 0;
    for (int run = 0; run <= runs; run++) {
      double[] a = time(job, uniform, uniformNodes);
      double[] b = time(job, hot, hotSalted);
      double[] c = time(job, hot, hotPlain);
      double d = detectorNsPerEvent(hot);
      if (run > 0) {
        u.add(a);
        hs.add(b);
        hp.add(c);
        detectorNs += d / runs;
      }
      System.out.printf(
          "  %-8s uniform cluster %,.0f ev/s (total %,.0f) | W2 salted %,.0f (total %,.0f) | W2 unsalted %,.0f (total %,.0f) | detector %.0f ns/event%n",
          run == 0 ? "warm-up" : "run " + run, a[0], a[1], b[0], b[1], c[0], c[1], d);
    }
    double mu = median(u, 0);
    double mhs = median(hs, 0);
    double mhp = median(hp, 0);
    System.out.printf(
        "median of %d: uniform %,.0f ev/s, W2 salted %,.0f ev/s (%.2fx uniform), W2 unsalted %,.0f ev/s (%.2fx);"
            + " per-event totals uniform %,.0f, W2 %,.0f ev/s; HotKeyDetector.update %.0f ns/event%n",
        runs, mu, mhs, mhs / mu, mhp, mhp / mu, median(u, 1), median(hs, 1), detectorNs);
  }

  private int[] nodes(HotKeySimulation sim, HotKeyEvents e, HotKeyTable table) {
    int[] node = new int[e.n];
    Map<String, int[]> salts = new HashMap<>();
    SaltRouter router = SaltRouter.withDefaultSeparator();
    for (int i = 0; i < e.n; i++) {
      HotKey h = table.get(e.key[i]);
      if (h == null) {
        node[i] = HotKeySimulation.hash(e.key[i], partitions);
      } else {
        int[] next = salts.computeIfAbsent(e.key[i], k -> new int[1]);
        int salt = next[0] % h.fanout();
        next[0] = salt + 1;
        node[i] = router.partition(table, e.key[i], salt, partitions);
      }
    }
    return node;
  }

  /**
   * {cluster rate, total rate}: each node's events (pre-split, in order) through a fresh
   * aggregator, after a GC, timed on its own.
   */
  private double[] time(JobSpec job, HotKeyEvents e, int[] node) {
    int[][] byNode = new int[partitions][];
    int[] sizes = new int[partitions];
    for (int p : node) {
      sizes[p]++;
    }
    for (int p = 0; p < partitions; p++) {
      byNode[p] = new int[sizes[p]];
      sizes[p] = 0;
    }
    for (int i = 0; i < e.n; i++) {
      byNode[node[i]][sizes[node[i]]++] = i;
    }
    long[] nanos = new long[partitions];
    double[] numeric = new double[1];
    SliceAssigner windows = SliceAssigner.of(job.window());
    for (int p = 0; p < partitions; p++) {
      PartitionAggregator agg =
          new PartitionAggregator(
              p,
              1,
              windows,
              job.watermark().delay().toMillis(),
              job.allowedLateness().toMillis(),
              job.toSketchSpec());
      System.gc();
      long t0 = System.nanoTime();
      int sinceEmit = 0;
      for (int i : byNode[p]) {
        numeric[0] = e.value[i];
        agg.update(e.key[i], e.eventTimeMs[i], numeric, e.user[i], null, e.value[i]);
        if (++sinceEmit == 20_000) {
          agg.emit(partial -> {});
          sinceEmit = 0;
        }
      }
      agg.finalizeOpenSlices();
      agg.emit(partial -> {});
      nanos[p] = System.nanoTime() - t0;
    }
    long max = 0;
    long sum = 0;
    for (long n : nanos) {
      max = Math.max(max, n);
      sum += n;
    }
    return new double[] {e.n * 1e9 / max, e.n * 1e9 / sum};
  }

  private double detectorNsPerEvent(HotKeyEvents e) {
    HotKeyDetector d = new HotKeyDetector(HotKeyDetector.Config.defaults());
    long t0 = System.nanoTime();
    for (int i = 0; i < e.n; i++) {
      d.update(e.key[i], e.nominalMs[i]);
    }
    return (System.nanoTime() - t0) / (double) e.n;
  }

  private static double median(List<double[]> xs, int index) {
    List<Double> s = new ArrayList<>();
    for (double[] x : xs) {
      s.add(x[index]);
    }
    Collections.sort(s);
    int n = s.size();
    return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
  }
}

package dev.skewer.benchmarks.workload;

import dev.skewer.coordinator.hotkey.FanoutPolicy;
import dev.skewer.core.hotkey.HotKey;
import dev.skewer.core.hotkey.HotKeyTable;
import dev.skewer.core.hotkey.SaltRouter;
import dev.skewer.node.hotkey.HotKeyCandidate;
import dev.skewer.node.hotkey.HotKeyDetector;
import dev.skewer.testkit.time.ManualClock;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.utils.Utils;

/**
 * Per-node load of one event stream under four placements, in simulated time: plain hashing,
 * two-choices (each key has two hashed partitions, each event goes to the less loaded), salting
 * with a static table computed from exact whole-run counts, and salting with the dynamic loop node
 * detectors → fanout policy → table, applied one tick after each decision.
 *
 * <p>Single-threaded; the counts are exact, so the figures are deterministic by seed.
 */
final class HotKeySimulation {

  /** One node per partition. */
  record Loads(long[] perNode) {
    double maxOverMean() {
      long max = 0;
      long sum = 0;
      for (long l : perNode) {
        max = Math.max(max, l);
        sum += l;
      }
      return sum == 0 ? 0 : max * (double) perNode.length / sum;
    }
  }

  /** What the dynamic loop did. */
  record Dynamic(
      Loads whole,
      Loads steady,
      Set<String> everHot,
      int maxTableSize,
      long burstSaltedAfterMs,
      long burstFellBackAfterMs) {}

  static final long WINDOW_MS = 10_000;
  static final long WATERMARK_DELAY_MS = 2_000;

  private final int partitions;
  private final SaltRouter router = SaltRouter.withDefaultSeparator();

  HotKeySimulation(int partitions) {
    this.partitions = partitions;
  }

  static int hash(String key, int partitions) {
    return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
  }

  Loads plain(HotKeyEvents e) {
    long[] load = new long[partitions];
    Map<String, Integer> memo = new HashMap<>();
    for (int i = 0; i < e.n; i++) {
      load[memo.computeIfAbsent(e.key[i], k -> hash(k, partitions))]++;
    }
    return new Loads(load);
  }

  /**
   * Partial key grouping (Nasir et al., "The power of both choices", ICDE 2015): candidates {@code
   * murmur2(key)} and {@code murmur2(key + "\u0001")}, the less loaded one wins.
   */
  Loads twoChoices(HotKeyEvents e) {
    long[] load = new long[partitions];
    Map<String, int[]> memo = new HashMap<>();
    for (int i = 0; i < e.n; i++) {
      int[] c =
          memo.computeIfAbsent(
              e.key[i], k -> new int[] {hash(k, partitions), hash(k + "\u0001", partitions)});
      load[load[c[0]] <= load[c[1]] ? c[0] : c[1]]++;
    }
    return new Loads(load);
  }

  /** The fanout policy's rule applied once to exact whole-run counts. */
  HotKeyTable staticTable(HotKeyEvents e, double targetShare, double minTargetRate) {
    Map<String, long[]> counts = new HashMap<>();
    for (int i = 0; i < e.n; i++) {
      counts.computeIfAbsent(e.key[i], k -> new long[1])[0]++;
    }
    double seconds = e.n / (double) e.spec.eventsPerSecond();
    double target = Math.max(minTargetRate, targetShare * e.n / seconds / partitions);
    List<HotKey> hot = new ArrayList<>();
    for (Map.Entry<String, long[]> c : counts.entrySet()) {
      int f = (int) Math.min(partitions, Math.ceil(c.getValue()[0] / seconds / target));
      if (f >= 2) {
        hot.add(new HotKey(c.getKey(), f, e.spec.startMs()));
      }
    }
    return HotKeyTable.of(hot);
  }

  Loads salted(HotKeyEvents e, HotKeyTable table) {
    long[] load = new long[partitions];
    Map<String, int[]> salts = new HashMap<>();
    for (int i = 0; i < e.n; i++) {
      load[route(table, e.key[i], salts)]++;
    }
    return new Loads(load);
  }

  /** Round-robin salts per key, as the load generator does. */
  private int route(HotKeyTable table, String key, Map<String, int[]> salts) {
    HotKey hot = table.get(key);
    if (hot == null) {
      return hash(key, partitions);
    }
    int[] next = salts.computeIfAbsent(key, k -> new int[1]);
    int salt = next[0] % hot.fanout();
    next[0] = salt + 1;
    return router.partition(table, key, salt, partitions);
  }

  /**
   * The dynamic loop. Per event: route by the applied table, node detector update. Per tick:
   * candidates and partition rates to the policy, then decide; the decision is applied at the next
   * tick (publication latency). Exact per-window counts reach the policy when a window's end +
   * watermark delay has passed.
   */
  Dynamic dynamic(
      HotKeyEvents e,
      FanoutPolicy.Config policyConfig,
      HotKeyDetector.Config detectorConfig,
      long tickMs,
      long steadyAfterMs,
      String burstKey) {
    ManualClock clock = new ManualClock(e.spec.startMs());
    FanoutPolicy policy = new FanoutPolicy(policyConfig, partitions, clock);
    HotKeyDetector[] detectors = new HotKeyDetector[partitions];
    for (int p = 0; p < partitions; p++) {
      detectors[p] = new HotKeyDetector(detectorConfig);
    }
    long[] whole = new long[partitions];
    long[] steady = new long[partitions];
    Map<String, int[]> salts = new HashMap<>();
    Map<Long, Map<String, long[]>> windows = new HashMap<>();
    HotKeyTable applied = HotKeyTable.EMPTY;
    HotKeyTable decided = HotKeyTable.EMPTY;
    Set<String> everHot = new HashSet<>();
    int maxTable = 0;
    long start = e.spec.startMs();
    long nextTick = start + tickMs;
    long burstStart = start + e.spec.burstStartMs();
    long burstSaltedAt = -1;
    long burstFellBackAt = -1;
    for (int i = 0; i < e.n; i++) {
      long now = e.nominalMs[i];
      while (now >= nextTick) {
        clock.set(nextTick);
        applied = decided;
        for (int p = 0; p < partitions; p++) {
          policy.observePartitionRate(p, detectors[p].rate(nextTick));
          for (HotKeyCandidate c : detectors[p].candidates(nextTick)) {
            policy.observeCandidate(p, c.key(), c.eventsPerSecond());
          }
        }
        feedClosedWindows(policy, windows, nextTick);
        decided = policy.decide();
        for (HotKey h : decided.entries()) {
          everHot.add(h.key());
        }
        maxTable = Math.max(maxTable, decided.size());
        if (burstKey != null) {
          boolean hot = applied.get(burstKey) != null;
          if (hot && burstSaltedAt < 0 && nextTick >= burstStart) {
            burstSaltedAt = nextTick;
          } else if (!hot && burstSaltedAt >= 0 && burstFellBackAt < 0) {
            burstFellBackAt = nextTick;
          }
        }
        nextTick += tickMs;
      }
      String key = e.key[i];
      int p = route(applied, key, salts);
      whole[p]++;
      if (now - start >= steadyAfterMs) {
        steady[p]++;
      }
      detectors[p].update(key, now);
      long windowStart = Math.floorDiv(e.eventTimeMs[i], WINDOW_MS) * WINDOW_MS;
      windows.computeIfAbsent(windowStart, w -> new HashMap<>())
          .computeIfAbsent(key, k -> new long[1])[0]++;
    }
    return new Dynamic(
        new Loads(whole),
        new Loads(steady),
        everHot,
        maxTable,
        burstSaltedAt < 0 ? -1 : burstSaltedAt - burstStart,
        burstFellBackAt < 0 ? -1 : burstFellBackAt - burstStart);
  }

  private static void feedClosedWindows(
      FanoutPolicy policy, Map<Long, Map<String, long[]>> windows, long nowMs) {
    List<Long> closed = new ArrayList<>();
    for (Long w : windows.keySet()) {
      if (w + WINDOW_MS + WATERMARK_DELAY_MS <= nowMs) {
        closed.add(w);
      }
    }
    closed.sort(null);
    for (Long w : closed) {
      for (Map.Entry<String, long[]> c : windows.remove(w).entrySet()) {
        policy.observeResult(c.getKey(), w, w + WINDOW_MS, c.getValue()[0]);
      }
      policy.sealWindowsEndingBy(w + WINDOW_MS);
    }
  }
}

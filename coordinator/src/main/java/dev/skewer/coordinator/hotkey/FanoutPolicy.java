package dev.skewer.coordinator.hotkey;

import dev.skewer.core.hotkey.HotKey;
import dev.skewer.core.hotkey.HotKeyTable;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Decides each key's fanout from measured rates, with hysteresis.
 *
 * <p>Rates: a key's rate is the larger of (a) its exact count in the latest <em>sealed</em> window
 * ({@link #observeResult}) divided by the window's length and (b) the sum over source partitions of
 * the nodes' fresh candidate rates ({@link #observeCandidate}; fresh = observed within {@code
 * candidateTtl}). The total rate is the larger of the sealed window's total and the sum of fresh
 * partition rates ({@link #observePartitionRate}). A window is sealed when a result of a
 * later-ending window arrives or by {@link #sealWindowsEndingBy}.
 *
 * <p>Target: {@code T = max(minTargetRate, targetShare × totalRate / P)} events per second per
 * sub-key. Desired fanout {@code d = clamp(ceil(rate / T), 1, P)}. On {@link #decide}:
 *
 * <ul>
 *   <li>raise at once when {@code d > f};
 *   <li>a hot key is <em>below</em> when {@code rate < lowerRatio × (f − 1) × T} (it would fit in
 *       one sub-key fewer, with a margin); when it has been below at every decision for {@code
 *       quietPeriod}, its fanout drops to {@code d} (to 1 — out of the table — for a key that
 *       cooled down) and the quiet period starts again for any further drop;
 *   <li>otherwise {@code f} holds. A rate oscillating around a fanout boundary therefore moves the
 *       fanout up once and never back down while it stays above {@code lowerRatio} of it.
 * </ul>
 *
 * {@code sinceMs} is when the key last entered the table, kept across fanout changes.
 *
 * <p>Deterministic: the same observations and clock readings give the same tables. Not thread-safe:
 * one owner (the merge verticle's context, or a worker).
 */
public final class FanoutPolicy {

  /**
   * Configuration.
   *
   * @param targetShare target rate per sub-key as a share of the mean partition rate (0, 1]
   * @param minTargetRate floor of the target rate, events per second (> 0): below it nothing is
   *     salted
   * @param lowerRatio hysteresis factor in (0, 1)
   * @param quietPeriod how long a key must stay below before its fanout is lowered
   * @param candidateTtl how long a node's candidate or partition rate counts
   */
  public record Config(
      double targetShare,
      double minTargetRate,
      double lowerRatio,
      Duration quietPeriod,
      Duration candidateTtl) {

    public static final double DEFAULT_TARGET_SHARE = 1.0 / 128;
    public static final double DEFAULT_MIN_TARGET_RATE = 100;
    public static final double DEFAULT_LOWER_RATIO = 0.7;
    public static final Duration DEFAULT_QUIET_PERIOD = Duration.ofSeconds(30);
    public static final Duration DEFAULT_CANDIDATE_TTL = Duration.ofSeconds(3);

    public Config {
      if (!(targetShare > 0 && targetShare <= 1)) {
        throw new IllegalArgumentException("targetShare must be in (0, 1]: " + targetShare);
      }
      if (!(minTargetRate > 0) || Double.isInfinite(minTargetRate)) {
        throw new IllegalArgumentException(
            "minTargetRate must be finite and > 0: " + minTargetRate);
      }
      if (!(lowerRatio > 0 && lowerRatio < 1)) {
        throw new IllegalArgumentException("lowerRatio must be in (0, 1): " + lowerRatio);
      }
      if (quietPeriod == null || quietPeriod.isNegative()) {
        throw new IllegalArgumentException("quietPeriod must be >= 0: " + quietPeriod);
      }
      if (candidateTtl == null || candidateTtl.isNegative() || candidateTtl.isZero()) {
        throw new IllegalArgumentException("candidateTtl must be > 0: " + candidateTtl);
      }
    }

    public static Config defaults() {
      return new Config(
          DEFAULT_TARGET_SHARE,
          DEFAULT_MIN_TARGET_RATE,
          DEFAULT_LOWER_RATIO,
          DEFAULT_QUIET_PERIOD,
          DEFAULT_CANDIDATE_TTL);
    }

    public Config withTargetShare(double targetShare) {
      return new Config(targetShare, minTargetRate, lowerRatio, quietPeriod, candidateTtl);
    }

    public Config withMinTargetRate(double minTargetRate) {
      return new Config(targetShare, minTargetRate, lowerRatio, quietPeriod, candidateTtl);
    }

    public Config withQuietPeriod(Duration quietPeriod) {
      return new Config(targetShare, minTargetRate, lowerRatio, quietPeriod, candidateTtl);
    }

    public Config withCandidateTtl(Duration candidateTtl) {
      return new Config(targetShare, minTargetRate, lowerRatio, quietPeriod, candidateTtl);
    }
  }

  // configuration
  private final Config config;
  private final int partitions;
  private final Clock clock;

  // state: exact windows (open tallies by window end; the latest sealed one)
  private final TreeMap<Long, Tally> openWindows = new TreeMap<>();
  private Tally sealed;
  // state: node observations, by source partition
  private final Map<Integer, Map<String, Observed>> candidates = new HashMap<>();
  private final Map<Integer, Observed> partitionRates = new HashMap<>();
  // state: decisions
  private final Map<String, Decision> hot = new HashMap<>();
  private HotKeyTable table = HotKeyTable.EMPTY;
  private double lastTargetRate;
  private double lastTotalRate;

  public FanoutPolicy(Config config, int partitions, Clock clock) {
    if (config == null || clock == null) {
      throw new IllegalArgumentException("config and clock must not be null");
    }
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be >= 1: " + partitions);
    }
    this.config = config;
    this.partitions = partitions;
    this.clock = clock;
  }

  /**
   * An exact per-key count of a closed window (one final result). Results of a window older than
   * the latest sealed one are ignored; a revision replaces the key's count.
   */
  public void observeResult(String key, long windowStartMs, long windowEndMs, long count) {
    if (windowEndMs <= windowStartMs) {
      throw new IllegalArgumentException(
          "windowEndMs must be > windowStartMs: [" + windowStartMs + ", " + windowEndMs + ")");
    }
    if (sealed != null && windowEndMs <= sealed.endMs) {
      return;
    }
    sealWindowsEndingBy(windowEndMs - 1);
    openWindows
        .computeIfAbsent(windowEndMs, e -> new Tally(windowStartMs, windowEndMs))
        .put(key, count);
  }

  /**
   * Seals every open window ending at or before {@code windowEndMs}; the latest becomes the exact
   * feed.
   */
  public void sealWindowsEndingBy(long windowEndMs) {
    while (!openWindows.isEmpty() && openWindows.firstKey() <= windowEndMs) {
      sealed = openWindows.pollFirstEntry().getValue();
    }
  }

  /** A node's candidate: bare {@code key} at {@code eventsPerSecond} on {@code sourcePartition}. */
  public void observeCandidate(int sourcePartition, String key, double eventsPerSecond) {
    candidates
        .computeIfAbsent(sourcePartition, p -> new HashMap<>())
        .put(key, new Observed(eventsPerSecond, clock.millis()));
  }

  /** A node's total rate on {@code sourcePartition}, events per second. */
  public void observePartitionRate(int sourcePartition, double eventsPerSecond) {
    partitionRates.put(sourcePartition, new Observed(eventsPerSecond, clock.millis()));
  }

  /**
   * Applies the rules of the class contract now; returns the table (the same instance if
   * unchanged).
   */
  public HotKeyTable decide() {
    long now = clock.millis();
    long ttl = config.candidateTtl().toMillis();
    Map<String, Double> nodeRates = new HashMap<>();
    double nodeTotal = 0;
    for (Map<String, Observed> byKey : candidates.values()) {
      byKey.values().removeIf(o -> now - o.atMs > ttl);
      for (Map.Entry<String, Observed> e : byKey.entrySet()) {
        nodeRates.merge(e.getKey(), e.getValue().rate, Double::sum);
      }
    }
    partitionRates.values().removeIf(o -> now - o.atMs > ttl);
    for (Observed o : partitionRates.values()) {
      nodeTotal += o.rate;
    }
    double exactTotal = sealed == null ? 0 : sealed.total * 1000.0 / sealed.lengthMs();
    double total = Math.max(exactTotal, nodeTotal);
    double target = Math.max(config.minTargetRate(), config.targetShare() * total / partitions);
    lastTotalRate = total;
    lastTargetRate = target;

    TreeSet<String> keys = new TreeSet<>(hot.keySet());
    for (Map.Entry<String, Double> e : nodeRates.entrySet()) {
      if (e.getValue() > target) {
        keys.add(e.getKey());
      }
    }
    if (sealed != null) {
      long minCount = (long) Math.floor(target * sealed.lengthMs() / 1000.0);
      for (Map.Entry<String, Long> e : sealed.counts.entrySet()) {
        if (e.getValue() > minCount) {
          keys.add(e.getKey());
        }
      }
    }
    boolean changed = false;
    for (String key : keys) {
      double rate = rate(key, nodeRates);
      int desired = (int) Math.min(partitions, Math.max(1, Math.ceil(rate / target)));
      Decision d = hot.get(key);
      int current = d == null ? 1 : d.fanout;
      if (desired > current) {
        if (d == null) {
          d = new Decision(now);
          hot.put(key, d);
        }
        d.fanout = desired;
        d.belowSinceMs = Long.MIN_VALUE;
        changed = true;
      } else if (d != null && rate < config.lowerRatio() * (current - 1) * target) {
        if (d.belowSinceMs == Long.MIN_VALUE) {
          d.belowSinceMs = now;
        }
        if (now - d.belowSinceMs >= config.quietPeriod().toMillis()) {
          changed = true;
          if (desired <= 1) {
            hot.remove(key);
          } else {
            d.fanout = desired;
            d.belowSinceMs = Long.MIN_VALUE;
          }
        }
      } else if (d != null) {
        d.belowSinceMs = Long.MIN_VALUE;
      }
    }
    if (changed) {
      List<HotKey> entries = new ArrayList<>(hot.size());
      for (Map.Entry<String, Decision> e : hot.entrySet()) {
        entries.add(new HotKey(e.getKey(), e.getValue().fanout, Math.max(0, e.getValue().sinceMs)));
      }
      table = HotKeyTable.of(entries);
    }
    return table;
  }

  /**
   * Whether {@code key}, measured at {@code eventsPerSecond} (by one source partition: at most its
   * whole rate), would get a larger fanout than it has at the target of the last {@link #decide}
   * (the floor before the first): a decision is due now rather than at the next round. Reads only.
   */
  public boolean wouldRaise(String key, double eventsPerSecond) {
    double target = Math.max(config.minTargetRate(), lastTargetRate);
    if (!(eventsPerSecond > target)) {
      return false;
    }
    int desired = (int) Math.min(partitions, Math.ceil(eventsPerSecond / target));
    Decision d = hot.get(key);
    return desired > (d == null ? 1 : d.fanout);
  }

  private double rate(String key, Map<String, Double> nodeRates) {
    double exact = 0;
    if (sealed != null) {
      Long c = sealed.counts.get(key);
      exact = c == null ? 0 : c * 1000.0 / sealed.lengthMs();
    }
    return Math.max(exact, nodeRates.getOrDefault(key, 0.0));
  }

  /** The table of the last {@link #decide}. */
  public HotKeyTable table() {
    return table;
  }

  /** The target rate per sub-key at the last {@link #decide}, events per second. */
  public double targetRate() {
    return lastTargetRate;
  }

  /** The total rate the last {@link #decide} used, events per second. */
  public double totalRate() {
    return lastTotalRate;
  }

  /**
   * Every hot key with its current rate estimate, for {@code GET /api/v1/hotkeys}; sorted by key.
   * Reads the observations as of the last {@link #decide}'s expiry of stale node candidates.
   */
  public List<HotKeyStatus> status() {
    Map<String, Double> nodeRates = new HashMap<>();
    for (Map<String, Observed> byKey : candidates.values()) {
      for (Map.Entry<String, Observed> e : byKey.entrySet()) {
        nodeRates.merge(e.getKey(), e.getValue().rate, Double::sum);
      }
    }
    List<HotKeyStatus> out = new ArrayList<>();
    for (HotKey h : table.entries()) {
      Decision d = hot.get(h.key());
      out.add(
          new HotKeyStatus(
              h.key(),
              h.fanout(),
              h.sinceMs(),
              rate(h.key(), nodeRates),
              d != null && d.belowSinceMs != Long.MIN_VALUE));
    }
    return out;
  }

  public Config config() {
    return config;
  }

  public int partitions() {
    return partitions;
  }

  private static final class Tally {
    final long startMs;
    final long endMs;
    final Map<String, Long> counts = new HashMap<>();
    long total;

    Tally(long startMs, long endMs) {
      this.startMs = startMs;
      this.endMs = endMs;
    }

    void put(String key, long count) {
      Long old = counts.put(key, count);
      total += count - (old == null ? 0 : old);
    }

    long lengthMs() {
      return endMs - startMs;
    }
  }

  private record Observed(double rate, long atMs) {}

  private static final class Decision {
    final long sinceMs;
    int fanout = 1;
    long belowSinceMs = Long.MIN_VALUE;

    Decision(long sinceMs) {
      this.sinceMs = sinceMs;
    }
  }
}

package dev.skewer.loadgen.workload;

import java.time.Duration;

/**
 * A synthetic workload, deterministic by {@code seed}. The reference workloads of BENCHMARK.md are
 * presets: {@link #w1}, {@link #w2}, {@link #w3}; {@link #demo} is the live demo's mix.
 *
 * <p>Event {@code i} (0-based) of a simulated workload has the nominal time {@code startMs + i *
 * 1000 / eventsPerSecond} (integer division); a live workload uses the clock's current time
 * instead. Per event, in this order:
 *
 * <ul>
 *   <li>kind: LATE with probability {@code lateFraction}, else MALFORMED with {@code
 *       malformedFraction}, else FUTURE with {@code futureFraction}, else NORMAL (one uniform draw,
 *       only if any fraction is positive);
 *   <li>key: during the burst (nominal time within {@code [burstStartMs, burstStartMs +
 *       burstDurationMs)} of event 0's), {@code "ad" + (keys - 1)} with probability {@code
 *       burstShare} (one draw, only if positive and in the burst); else {@code "ad0"} with
 *       probability {@code hotKeyShare} (one draw, only if positive), else {@code "ad" + k}: k
 *       Zipf({@code zipfS}) over {@code [0, keys)}, or over {@code [1, keys)} when there is a hot
 *       key;
 *   <li>user: {@code "u" + id}, id uniform over {@code [0, users)};
 *   <li>value: log-normal with median {@code valueMedian} and {@code valueSigma}, 3 decimals;
 *   <li>event time: NORMAL: nominal minus a jitter uniform over {@code [0, disorderMs]}; LATE:
 *       nominal minus {@code lateByMs}; FUTURE: nominal plus two days; MALFORMED: nominal.
 * </ul>
 *
 * @param name a label for logs and reports
 * @param events how many events; {@code Long.MAX_VALUE} for an endless live workload
 * @param keys number of distinct keys
 * @param zipfS Zipf exponent of the key popularity ({@code 0} = uniform)
 * @param hotKeyShare share of all events carried by {@code ad0}, {@code 0} for none
 * @param users number of distinct users
 * @param valueMedian median of the log-normal value
 * @param valueSigma sigma of the log-normal value
 * @param startMs T0: the nominal time of event 0 (simulated workloads)
 * @param eventsPerSecond events per simulated second (simulated workloads)
 * @param disorderMs bound of the backwards jitter of NORMAL events
 * @param lateFraction share of LATE events
 * @param lateByMs how far behind the nominal time a LATE event is
 * @param malformedFraction share of MALFORMED events
 * @param futureFraction share of FUTURE events
 * @param seed the seed: the same spec yields the same events
 * @param burstShare during the burst, the share of events carried by the burst key {@code "ad" +
 *     (keys - 1)} (the coldest key of the Zipf ranking), {@code 0} for no burst
 * @param burstStartMs when the burst starts, ms after event 0's nominal time
 * @param burstDurationMs how long the burst lasts, ms
 */
public record WorkloadSpec(
    String name,
    long events,
    int keys,
    double zipfS,
    double hotKeyShare,
    int users,
    double valueMedian,
    double valueSigma,
    long startMs,
    long eventsPerSecond,
    long disorderMs,
    double lateFraction,
    long lateByMs,
    double malformedFraction,
    double futureFraction,
    long seed,
    double burstShare,
    long burstStartMs,
    long burstDurationMs) {

  /** A spec without a burst (the original sixteen components). */
  public WorkloadSpec(
      String name,
      long events,
      int keys,
      double zipfS,
      double hotKeyShare,
      int users,
      double valueMedian,
      double valueSigma,
      long startMs,
      long eventsPerSecond,
      long disorderMs,
      double lateFraction,
      long lateByMs,
      double malformedFraction,
      double futureFraction,
      long seed) {
    this(
        name,
        events,
        keys,
        zipfS,
        hotKeyShare,
        users,
        valueMedian,
        valueSigma,
        startMs,
        eventsPerSecond,
        disorderMs,
        lateFraction,
        lateByMs,
        malformedFraction,
        futureFraction,
        seed,
        0,
        0,
        0);
  }

  /** T0 of the reference workloads. */
  public static final long T0_MS = 1_700_000_000_000L;

  public static final int DEFAULT_KEYS = 100_000;
  public static final double DEFAULT_ZIPF_S = 1.1;
  public static final int DEFAULT_USERS = 1_000_000;
  public static final double DEFAULT_VALUE_MEDIAN = 20.0;
  public static final double DEFAULT_VALUE_SIGMA = 1.0;
  public static final long DEFAULT_EVENTS_PER_SECOND = 100_000;
  public static final long DEFAULT_DISORDER_MS = 2_000;

  /** How far in the future a FUTURE event is. */
  public static final long FUTURE_BY_MS = Duration.ofDays(2).toMillis();

  public WorkloadSpec {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("name must not be blank: '" + name + "'");
    }
    if (events < 0) {
      throw new IllegalArgumentException("events must be >= 0: " + events);
    }
    if (keys < 1 || (hotKeyShare > 0 && keys < 2)) {
      throw new IllegalArgumentException("keys must be >= 1 (>= 2 with a hot key): " + keys);
    }
    if (!(zipfS >= 0) || Double.isInfinite(zipfS)) {
      throw new IllegalArgumentException("zipfS must be finite and >= 0: " + zipfS);
    }
    requireFraction("hotKeyShare", hotKeyShare);
    if (users < 1) {
      throw new IllegalArgumentException("users must be >= 1: " + users);
    }
    if (!(valueMedian > 0) || Double.isInfinite(valueMedian)) {
      throw new IllegalArgumentException("valueMedian must be finite and > 0: " + valueMedian);
    }
    if (!(valueSigma >= 0) || Double.isInfinite(valueSigma)) {
      throw new IllegalArgumentException("valueSigma must be finite and >= 0: " + valueSigma);
    }
    if (eventsPerSecond < 1) {
      throw new IllegalArgumentException("eventsPerSecond must be >= 1: " + eventsPerSecond);
    }
    if (disorderMs < 0) {
      throw new IllegalArgumentException("disorderMs must be >= 0: " + disorderMs);
    }
    if (lateByMs < 0) {
      throw new IllegalArgumentException("lateByMs must be >= 0: " + lateByMs);
    }
    requireFraction("lateFraction", lateFraction);
    requireFraction("malformedFraction", malformedFraction);
    requireFraction("futureFraction", futureFraction);
    requireFraction("burstShare", burstShare);
    if (burstStartMs < 0 || burstDurationMs < 0) {
      throw new IllegalArgumentException(
          "burstStartMs and burstDurationMs must be >= 0: "
              + burstStartMs
              + ", "
              + burstDurationMs);
    }
    if (burstShare > 0 && (keys < 2 || hotKeyShare + burstShare > 1)) {
      throw new IllegalArgumentException(
          "a burst needs keys >= 2 and hotKeyShare + burstShare"
              + " <= 1: keys="
              + keys
              + " hotKeyShare="
              + hotKeyShare
              + " burstShare="
              + burstShare);
    }
    if (lateFraction + malformedFraction + futureFraction > 1) {
      throw new IllegalArgumentException(
          "lateFraction + malformedFraction + futureFraction must be <= 1: "
              + (lateFraction + malformedFraction + futureFraction));
    }
  }

  private static void requireFraction(String field, double value) {
    if (!(value >= 0 && value <= 1)) {
      throw new IllegalArgumentException(field + " must be in [0, 1]: " + value);
    }
  }

  /**
   * W1, the peer race: 100,000 keys Zipf 1.1, 1,000,000 users, log-normal value (median 20, sigma
   * 1), 100,000 events per simulated second from T0, jitter [0, 2000] ms, nothing late or
   * malformed.
   */
  public static WorkloadSpec w1(long events, long seed) {
    return new WorkloadSpec(
        "W1",
        events,
        DEFAULT_KEYS,
        DEFAULT_ZIPF_S,
        0,
        DEFAULT_USERS,
        DEFAULT_VALUE_MEDIAN,
        DEFAULT_VALUE_SIGMA,
        T0_MS,
        DEFAULT_EVENTS_PER_SECOND,
        DEFAULT_DISORDER_MS,
        0,
        0,
        0,
        0,
        seed);
  }

  /** W2, one viral key: W1 with {@code ad0} carrying 50% of the events. */
  public static WorkloadSpec w2(long events, long seed) {
    return w1(events, seed).withName("W2").withHotKeyShare(0.5);
  }

  /** W3, the skew sweep: W1 with Zipf exponent {@code zipfS} (0.8, 1.1, 1.5, 2.0). */
  public static WorkloadSpec w3(long events, long seed, double zipfS) {
    return w1(events, seed).withName("W3(s=" + zipfS + ")").withZipfS(zipfS);
  }

  /**
   * The live demo's endless mix (use with {@link Workload#live}): 10,000 keys Zipf 1.1, a hot key
   * with {@code hotKeyShare}, 100,000 users, disorder up to {@code disorder}, 0.2% LATE events
   * {@code lateBy} behind, 0.1% MALFORMED, 0.05% FUTURE.
   *
   * @param lateBy should exceed allowed lateness + window size + watermark delay, plus a margin
   */
  public static WorkloadSpec demo(
      double hotKeyShare, Duration disorder, Duration lateBy, long seed) {
    return new WorkloadSpec(
        "demo",
        Long.MAX_VALUE,
        10_000,
        DEFAULT_ZIPF_S,
        hotKeyShare,
        100_000,
        DEFAULT_VALUE_MEDIAN,
        DEFAULT_VALUE_SIGMA,
        0,
        DEFAULT_EVENTS_PER_SECOND,
        disorder.toMillis(),
        0.002,
        lateBy.toMillis(),
        0.001,
        0.0005,
        seed);
  }

  /**
   * The burst preset: W1 where the coldest key {@code "ad" + (keys - 1)} suddenly carries {@code
   * share} of all events from {@code start} after the first event for {@code duration}, then cools
   * back to its Zipf share.
   */
  public static WorkloadSpec burst(
      long events, long seed, Duration start, Duration duration, double share) {
    return w1(events, seed).withName("burst").withBurst(share, start, duration);
  }

  /** {@link #burst} with 40% of the events from 5 s for 10 s. */
  public static WorkloadSpec burst(long events, long seed) {
    return burst(events, seed, Duration.ofSeconds(5), Duration.ofSeconds(10), 0.4);
  }

  /** The key that bursts: {@code "ad" + (keys - 1)}. */
  public String burstKey() {
    return "ad" + (keys - 1);
  }

  /** A burst of {@code share} of the events, {@code start} after event 0, for {@code duration}. */
  public WorkloadSpec withBurst(double share, Duration start, Duration duration) {
    return new WorkloadSpec(
        name,
        events,
        keys,
        zipfS,
        hotKeyShare,
        users,
        valueMedian,
        valueSigma,
        startMs,
        eventsPerSecond,
        disorderMs,
        lateFraction,
        lateByMs,
        malformedFraction,
        futureFraction,
        seed,
        share,
        start.toMillis(),
        duration.toMillis());
  }

  public WorkloadSpec withName(String name) {
    return new WorkloadSpec(
        name,
        events,
        keys,
        zipfS,
        hotKeyShare,
        users,
        valueMedian,
        valueSigma,
        startMs,
        eventsPerSecond,
        disorderMs,
        lateFraction,
        lateByMs,
        malformedFraction,
        futureFraction,
        seed,
        burstShare,
        burstStartMs,
        burstDurationMs);
  }

  public WorkloadSpec withEvents(long events) {
    return new WorkloadSpec(
        name,
        events,
        keys,
        zipfS,
        hotKeyShare,
        users,
        valueMedian,
        valueSigma,
        startMs,
        eventsPerSecond,
        disorderMs,
        lateFraction,
        lateByMs,
        malformedFraction,
        futureFraction,
        seed,
        burstShare,
        burstStartMs,
        burstDurationMs);
  }

  public WorkloadSpec withKeys(int keys) {
    return new WorkloadSpec(
        name,
        events,
        keys,
        zipfS,
        hotKeyShare,
        users,
        valueMedian,
        valueSigma,
        startMs,
        eventsPerSecond,
        disorderMs,
        lateFraction,
        lateByMs,
        malformedFraction,
        futureFraction,
        seed,
        burstShare,
        burstStartMs,
        burstDurationMs);
  }

  public WorkloadSpec withZipfS(double zipfS) {
    return new WorkloadSpec(
        name,
        events,
        keys,
        zipfS,
        hotKeyShare,
        users,
        valueMedian,
        valueSigma,
        startMs,
        eventsPerSecond,
        disorderMs,
        lateFraction,
        lateByMs,
        malformedFraction,
        futureFraction,
        seed,
        burstShare,
        burstStartMs,
        burstDurationMs);
  }

  public WorkloadSpec withHotKeyShare(double hotKeyShare) {
    return new WorkloadSpec(
        name,
        events,
        keys,
        zipfS,
        hotKeyShare,
        users,
        valueMedian,
        valueSigma,
        startMs,
        eventsPerSecond,
        disorderMs,
        lateFraction,
        lateByMs,
        malformedFraction,
        futureFraction,
        seed,
        burstShare,
        burstStartMs,
        burstDurationMs);
  }

  public WorkloadSpec withUsers(int users) {
    return new WorkloadSpec(
        name,
        events,
        keys,
        zipfS,
        hotKeyShare,
        users,
        valueMedian,
        valueSigma,
        startMs,
        eventsPerSecond,
        disorderMs,
        lateFraction,
        lateByMs,
        malformedFraction,
        futureFraction,
        seed,
        burstShare,
        burstStartMs,
        burstDurationMs);
  }

  /** Simulated time: starts at {@code startMs} with {@code eventsPerSecond}. */
  public WorkloadSpec withTime(long startMs, long eventsPerSecond) {
    return new WorkloadSpec(
        name,
        events,
        keys,
        zipfS,
        hotKeyShare,
        users,
        valueMedian,
        valueSigma,
        startMs,
        eventsPerSecond,
        disorderMs,
        lateFraction,
        lateByMs,
        malformedFraction,
        futureFraction,
        seed,
        burstShare,
        burstStartMs,
        burstDurationMs);
  }

  public WorkloadSpec withDisorder(Duration disorder) {
    return new WorkloadSpec(
        name,
        events,
        keys,
        zipfS,
        hotKeyShare,
        users,
        valueMedian,
        valueSigma,
        startMs,
        eventsPerSecond,
        disorder.toMillis(),
        lateFraction,
        lateByMs,
        malformedFraction,
        futureFraction,
        seed,
        burstShare,
        burstStartMs,
        burstDurationMs);
  }

  /** {@code lateFraction} of the events are LATE, {@code lateBy} behind the nominal time. */
  public WorkloadSpec withLate(double lateFraction, Duration lateBy) {
    return new WorkloadSpec(
        name,
        events,
        keys,
        zipfS,
        hotKeyShare,
        users,
        valueMedian,
        valueSigma,
        startMs,
        eventsPerSecond,
        disorderMs,
        lateFraction,
        lateBy.toMillis(),
        malformedFraction,
        futureFraction,
        seed,
        burstShare,
        burstStartMs,
        burstDurationMs);
  }

  public WorkloadSpec withMalformed(double malformedFraction) {
    return new WorkloadSpec(
        name,
        events,
        keys,
        zipfS,
        hotKeyShare,
        users,
        valueMedian,
        valueSigma,
        startMs,
        eventsPerSecond,
        disorderMs,
        lateFraction,
        lateByMs,
        malformedFraction,
        futureFraction,
        seed,
        burstShare,
        burstStartMs,
        burstDurationMs);
  }

  public WorkloadSpec withFuture(double futureFraction) {
    return new WorkloadSpec(
        name,
        events,
        keys,
        zipfS,
        hotKeyShare,
        users,
        valueMedian,
        valueSigma,
        startMs,
        eventsPerSecond,
        disorderMs,
        lateFraction,
        lateByMs,
        malformedFraction,
        futureFraction,
        seed,
        burstShare,
        burstStartMs,
        burstDurationMs);
  }

  public WorkloadSpec withSeed(long seed) {
    return new WorkloadSpec(
        name,
        events,
        keys,
        zipfS,
        hotKeyShare,
        users,
        valueMedian,
        valueSigma,
        startMs,
        eventsPerSecond,
        disorderMs,
        lateFraction,
        lateByMs,
        malformedFraction,
        futureFraction,
        seed,
        burstShare,
        burstStartMs,
        burstDurationMs);
  }
}

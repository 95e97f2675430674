package dev.skewer.loadgen.workload;

import java.time.Clock;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.SplittableRandom;

/**
 * The events of a {@link WorkloadSpec}, generated on demand in order.
 *
 * <p>A simulated workload ({@link #of}) is a pure function of its spec: the same spec yields the
 * same events, byte for byte. A live workload ({@link #live}) takes each event's nominal time from
 * a clock, so only its keys, users, values, kinds and jitters are deterministic.
 *
 * <p>Not thread-safe: one consumer iterates.
 */
public final class Workload implements Iterator<GeneratedEvent> {

  /** Share of MALFORMED events that are over-size (they cost 65 KiB each: keep them rare). */
  static final double HUGE_SHARE_OF_MALFORMED = 0.02;

  private static final Malformation[] SMALL_MALFORMATIONS = {
    Malformation.NOT_JSON,
    Malformation.JSON_ARRAY,
    Malformation.MISSING_KEY,
    Malformation.MISSING_TS,
    Malformation.NAN_VALUE
  };

  private final WorkloadSpec spec;
  private final Clock clock;
  private final SplittableRandom random;
  private final ZipfSampler zipf;
  private final String[] keyNames;
  private final boolean drawKind;
  private final double lateBelow;
  private final double malformedBelow;
  private final double futureBelow;
  private final double logMedian;
  private final String burstKey;
  private long firstNominalMs = Long.MIN_VALUE;
  private long index;

  private Workload(WorkloadSpec spec, Clock clock) {
    this.spec = spec;
    this.clock = clock;
    this.random = new SplittableRandom(spec.seed());
    boolean hot = spec.hotKeyShare() > 0;
    this.zipf = new ZipfSampler(hot ? spec.keys() - 1 : spec.keys(), spec.zipfS());
    this.keyNames = new String[spec.keys()];
    for (int k = 0; k < keyNames.length; k++) {
      keyNames[k] = "ad" + k;
    }
    this.drawKind =
        spec.lateFraction() > 0 || spec.malformedFraction() > 0 || spec.futureFraction() > 0;
    this.lateBelow = spec.lateFraction();
    this.malformedBelow = lateBelow + spec.malformedFraction();
    this.futureBelow = malformedBelow + spec.futureFraction();
    this.logMedian = Math.log(spec.valueMedian());
    this.burstKey = spec.burstShare() > 0 ? keyNames[spec.keys() - 1] : null;
  }

  /** The simulated workload of {@code spec}: event times follow from the event index. */
  public static Workload of(WorkloadSpec spec) {
    return new Workload(spec, null);
  }

  /** A live workload: each event's nominal time is {@code clock.millis()} when it is generated. */
  public static Workload live(WorkloadSpec spec, Clock clock) {
    if (clock == null) {
      throw new IllegalArgumentException("clock must not be null");
    }
    return new Workload(spec, clock);
  }

  public WorkloadSpec spec() {
    return spec;
  }

  /** How many events have been generated so far. */
  public long generated() {
    return index;
  }

  private boolean inBurst(long nominalMs) {
    long offset = nominalMs - firstNominalMs;
    return offset >= spec.burstStartMs() && offset < spec.burstStartMs() + spec.burstDurationMs();
  }

  @Override
  public boolean hasNext() {
    return index < spec.events();
  }

  @Override
  public GeneratedEvent next() {
    if (!hasNext()) {
      throw new NoSuchElementException("workload " + spec.name() + " ended after " + index);
    }
    long i = index++;
    long nominalMs =
        clock == null ? spec.startMs() + i * 1000 / spec.eventsPerSecond() : clock.millis();

    EventKind kind = EventKind.NORMAL;
    if (drawKind) {
      double u = random.nextDouble();
      if (u < lateBelow) {
        kind = EventKind.LATE;
      } else if (u < malformedBelow) {
        kind = EventKind.MALFORMED;
      } else if (u < futureBelow) {
        kind = EventKind.FUTURE;
      }
    }
    if (firstNominalMs == Long.MIN_VALUE) {
      firstNominalMs = nominalMs;
    }
    String key;
    if (burstKey != null && inBurst(nominalMs) && random.nextDouble() < spec.burstShare()) {
      key = burstKey;
    } else if (spec.hotKeyShare() > 0 && random.nextDouble() < spec.hotKeyShare()) {
      key = keyNames[0];
    } else {
      key = keyNames[spec.hotKeyShare() > 0 ? 1 + zipf.sample(random) : zipf.sample(random)];
    }
    String user = "u" + random.nextInt(spec.users());
    double value =
        EventJson.round3(Math.exp(logMedian + spec.valueSigma() * random.nextGaussian()));

    switch (kind) {
      case NORMAL:
        long jitter = spec.disorderMs() == 0 ? 0 : random.nextLong(spec.disorderMs() + 1);
        return GeneratedEvent.of(key, user, value, nominalMs - jitter, EventKind.NORMAL);
      case LATE:
        return GeneratedEvent.of(key, user, value, nominalMs - spec.lateByMs(), EventKind.LATE);
      case FUTURE:
        return GeneratedEvent.of(
            key, user, value, nominalMs + WorkloadSpec.FUTURE_BY_MS, EventKind.FUTURE);
      case MALFORMED:
        Malformation malformation =
            random.nextDouble() < HUGE_SHARE_OF_MALFORMED
                ? Malformation.HUGE
                : SMALL_MALFORMATIONS[random.nextInt(SMALL_MALFORMATIONS.length)];
        return new GeneratedEvent(
            key,
            user,
            value,
            nominalMs,
            EventKind.MALFORMED,
            EventJson.malformed(malformation, key, user, value, nominalMs),
            key,
            malformation);
      default:
        throw new IllegalStateException("unknown kind " + kind);
    }
  }
}

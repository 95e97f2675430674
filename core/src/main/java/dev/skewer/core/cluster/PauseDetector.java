package dev.skewer.core.cluster;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Notices when this process was paused (a long GC, SIGSTOP, a frozen VM, starved of CPU): a tick
 * every {@value #TICK_MS} ms, and a gap of at least the threshold between two ticks is a pause,
 * remembered with when it ended. Thread-safe.
 */
public final class PauseDetector implements AutoCloseable {

  static final long TICK_MS = 250;

  private final LongSupplier nanoClock;
  private final long thresholdNs;
  private final ScheduledExecutorService ticker; // null when ticked by hand (tests)
  private long lastTickNs;
  private long lastPauseEndNs;
  private long lastPauseNs; // 0: none yet

  PauseDetector(LongSupplier nanoClock, Duration threshold, ScheduledExecutorService ticker) {
    this.nanoClock = nanoClock;
    this.thresholdNs = threshold.toNanos();
    this.ticker = ticker;
    this.lastTickNs = nanoClock.getAsLong();
  }

  /** A detector ticking on a daemon thread of its own. */
  public static PauseDetector start(Duration threshold) {
    ScheduledExecutorService ticker =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "skewer-pause-detector");
              t.setDaemon(true);
              return t;
            });
    PauseDetector detector = new PauseDetector(System::nanoTime, threshold, ticker);
    ticker.scheduleAtFixedRate(detector::tick, TICK_MS, TICK_MS, TimeUnit.MILLISECONDS);
    return detector;
  }

  /** One tick: a gap since the previous one of at least the threshold is a pause ending now. */
  synchronized void tick() {
    long now = nanoClock.getAsLong();
    long gap = now - lastTickNs;
    if (gap >= thresholdNs) {
      lastPauseNs = gap;
      lastPauseEndNs = now;
    }
    lastTickNs = now;
  }

  /**
   * The length of the last pause if it ended within {@code window} of now; empty otherwise. A pause
   * still under way (no tick for the threshold or more) counts too.
   */
  public synchronized Optional<Duration> pausedWithin(Duration window) {
    long now = nanoClock.getAsLong();
    if (now - lastTickNs >= thresholdNs) {
      return Optional.of(Duration.ofNanos(now - lastTickNs));
    }
    if (lastPauseNs > 0 && now - lastPauseEndNs <= window.toNanos()) {
      return Optional.of(Duration.ofNanos(lastPauseNs));
    }
    return Optional.empty();
  }

  @Override
  public void close() {
    if (ticker != null) {
      ticker.shutdownNow();
    }
  }
}

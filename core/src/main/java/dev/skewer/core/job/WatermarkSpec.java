package dev.skewer.core.job;

import java.time.Duration;

/**
 * How event time advances per source partition: bounded out-of-orderness plus idleness.
 *
 * @param delay watermark = max event time seen − delay; >= 0
 * @param idle a source partition with no events for this long is idle and does not hold the global
 *     watermark back; > 0
 * @param maxFutureSkew an event time further ahead of the wall clock goes to the DLQ ({@code
 *     FUTURE_TIME}); > 0
 * @param finalizeAfterIdle null (never) or > 0: when a source partition has been idle this long,
 *     its open windows are closed as if its watermark had reached their end — end-of-input
 *     behaviour for bounded runs (benchmarks, tests)
 */
public record WatermarkSpec(
    Duration delay, Duration idle, Duration maxFutureSkew, Duration finalizeAfterIdle) {

  public static final Duration DEFAULT_DELAY = Duration.ofSeconds(2);
  public static final Duration DEFAULT_IDLE = Duration.ofSeconds(5);
  public static final Duration DEFAULT_MAX_FUTURE_SKEW = Duration.ofHours(1);
  public static final Duration DEFAULT_FINALIZE_AFTER_IDLE = null;

  public WatermarkSpec {
    WindowChecks.nonNegative("delay", delay);
    WindowChecks.positive("idle", idle);
    WindowChecks.positive("maxFutureSkew", maxFutureSkew);
    if (finalizeAfterIdle != null) {
      WindowChecks.positive("finalizeAfterIdle", finalizeAfterIdle);
    }
  }

  /** All defaults: delay 2s, idle 5s, maxFutureSkew 1h, never finalize on idleness. */
  public static WatermarkSpec defaults() {
    return new WatermarkSpec(
        DEFAULT_DELAY, DEFAULT_IDLE, DEFAULT_MAX_FUTURE_SKEW, DEFAULT_FINALIZE_AFTER_IDLE);
  }
}

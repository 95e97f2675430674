package dev.skewer.stage;

import org.slf4j.Logger;

/**
 * Logs a WARN at most once per interval and says how many were suppressed in between, so one bad
 * producer cannot flood the log. Not thread-safe: one owner (an event loop).
 */
public final class RateLimitedLog {
  private final Logger log;
  private final long intervalMs;
  private long lastMs = Long.MIN_VALUE;
  private long suppressed;

  public RateLimitedLog(Logger log, long intervalMs) {
    this.log = log;
    this.intervalMs = intervalMs;
  }

  public void warn(long nowMs, String format, Object... args) {
    if (lastMs != Long.MIN_VALUE && nowMs - lastMs < intervalMs) {
      suppressed++;
      return;
    }
    if (suppressed > 0) {
      log.warn("{} similar warnings suppressed in the last {} ms", suppressed, nowMs - lastMs);
      suppressed = 0;
    }
    lastMs = nowMs;
    log.warn(format, args);
  }
}

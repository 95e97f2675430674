package dev.skewer.core.job;

import java.time.Duration;

/**
 * Windows of {@code size} starting every {@code hop}, epoch-aligned; built at runtime from slices
 * of gcd(size, hop): an event updates one slice; the coordinator composes each window from its
 * slices.
 *
 * @param size the window length; positive, whole milliseconds
 * @param hop the distance between window starts; positive, at most size, whole milliseconds
 */
public record HoppingWindow(Duration size, Duration hop) implements WindowSpec {

  /**
   * The coordinator merges size/gcd(size, hop) slices per window: bounded so a typo (a 1-day window
   * every 7 ms) fails at load time instead of melting the coordinator.
   */
  public static final long MAX_SLICES_PER_WINDOW = 10_000;

  public HoppingWindow {
    WindowChecks.positive("size", size);
    WindowChecks.positive("hop", hop);
    if (hop.compareTo(size) > 0) {
      throw new JobSpecException(
          "hop", "must be <= size (" + Durations.format(size) + "), was " + Durations.format(hop));
    }
    long slices = size.toMillis() / gcd(size.toMillis(), hop.toMillis());
    if (slices > MAX_SLICES_PER_WINDOW) {
      throw new JobSpecException(
          "hop",
          "size / gcd(size, hop) must be <= "
              + MAX_SLICES_PER_WINDOW
              + " slices per window, was "
              + slices
              + " (size "
              + Durations.format(size)
              + ", hop "
              + Durations.format(hop)
              + ")");
    }
  }

  private static long gcd(long a, long b) {
    while (b != 0) {
      long t = a % b;
      a = b;
      b = t;
    }
    return a;
  }

  @Override
  public String type() {
    return "hopping";
  }

  @Override
  public boolean supportedByRuntime() {
    return true;
  }
}

package dev.skewer.core.job;

import java.time.Duration;

/**
 * Windows of {@code size} starting every {@code hop}, epoch-aligned; built at runtime from
 * slices of gcd(size, hop). Not yet run by the node and coordinator.
 *
 * @param size the window length; positive, whole milliseconds
 * @param hop the distance between window starts; positive, at most size, whole milliseconds
 */
public record HoppingWindow(Duration size, Duration hop) implements WindowSpec {
  public HoppingWindow {
    WindowChecks.positive("size", size);
    WindowChecks.positive("hop", hop);
    if (hop.compareTo(size) > 0) {
      throw new JobSpecException(
          "hop",
          "must be <= size (" + Durations.format(size) + "), was " + Durations.format(hop));
    }
  }

  @Override
  public String type() {
    return "hopping";
  }

  @Override
  public boolean supportedByRuntime() {
    return false;
  }
}

package dev.skewer.core.job;

import java.time.Duration;

/**
 * Fixed-size, non-overlapping windows aligned to the epoch: {@code [k*size, (k+1)*size)}.
 *
 * @param size the window length; positive, whole milliseconds
 */
public record TumblingWindow(Duration size) implements WindowSpec {
  public TumblingWindow {
    WindowChecks.positive("size", size);
  }

  @Override
  public String type() {
    return "tumbling";
  }

  @Override
  public boolean supportedByRuntime() {
    return true;
  }
}

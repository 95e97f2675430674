package dev.skewer.core.job;

import java.time.Duration;

/**
 * Per-key sessions: events closer than {@code gap} belong to one session. Not yet run by the
 * node and coordinator.
 *
 * @param gap the inactivity gap that ends a session; positive, whole milliseconds
 */
public record SessionWindow(Duration gap) implements WindowSpec {
  public SessionWindow {
    WindowChecks.positive("gap", gap);
  }

  @Override
  public String type() {
    return "session";
  }

  @Override
  public boolean supportedByRuntime() {
    return false;
  }
}

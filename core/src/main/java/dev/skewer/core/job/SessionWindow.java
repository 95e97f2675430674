package dev.skewer.core.job;

import java.time.Duration;

/**
 * Per-key sessions: events closer than {@code gap} belong to one session. Nodes build partial
 * sessions from slices of a quarter of the gap, the coordinator chains them into exact sessions
 * (see {@code dev.skewer.core.window}).
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
    return true;
  }
}

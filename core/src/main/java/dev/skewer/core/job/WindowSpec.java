package dev.skewer.core.job;

import java.time.Duration;

/**
 * The windows results are computed over: tumbling, hopping (sliding) and session windows, all run
 * by the node and coordinator by event time with watermarks and allowed lateness.
 */
public sealed interface WindowSpec permits TumblingWindow, HoppingWindow, SessionWindow {

  /**
   * The {@code type} written in the job file: {@code tumbling}, {@code hopping}, {@code session}.
   */
  String type();

  /** Whether the node and coordinator can run this kind of window yet. */
  boolean supportedByRuntime();

  /** Fixed-size, non-overlapping, epoch-aligned windows. */
  static WindowSpec tumbling(Duration size) {
    return new TumblingWindow(size);
  }

  /** Windows of {@code size} starting every {@code hop}. */
  static WindowSpec hopping(Duration size, Duration hop) {
    return new HoppingWindow(size, hop);
  }

  /** Per-key sessions closed by {@code gap} of inactivity. */
  static WindowSpec session(Duration gap) {
    return new SessionWindow(gap);
  }
}

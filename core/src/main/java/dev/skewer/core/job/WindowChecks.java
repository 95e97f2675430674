package dev.skewer.core.job;

import java.time.Duration;

final class WindowChecks {
  /** Durations are capped so that epoch-millisecond arithmetic cannot overflow. */
  static final Duration MAX = Duration.ofDays(36_500);

  private WindowChecks() {}

  private static void bounded(String field, Duration d) {
    if (d.compareTo(MAX) > 0) {
      throw new JobSpecException(field, "must be <= 36500d, was " + Durations.format(d));
    }
  }

  static void positive(String field, Duration d) {
    Names.requireNonNull(field, d);
    if (d.isNegative() || d.isZero()) {
      throw new JobSpecException(field, "must be > 0, was " + Durations.format(d));
    }
    Names.requireWholeMillis(field, d);
    bounded(field, d);
  }

  static void nonNegative(String field, Duration d) {
    Names.requireNonNull(field, d);
    if (d.isNegative()) {
      throw new JobSpecException(field, "must be >= 0, was " + Durations.format(d));
    }
    Names.requireWholeMillis(field, d);
    bounded(field, d);
  }
}

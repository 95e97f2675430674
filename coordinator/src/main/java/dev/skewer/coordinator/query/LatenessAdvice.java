package dev.skewer.coordinator.query;

import java.time.Duration;
import java.util.Locale;

/**
 * The allowed lateness that would have kept 99 % and 99.9 % of the late events measured so far (see
 * {@link SideOutputStats} for what "measured" means): the upper bound of the histogram bucket
 * holding that quantile of the needed lateness, so never less than the exact answer and at most 1.6
 * % more.
 *
 * @param allowedLatenessMs the job's allowed lateness now
 * @param lateEvents late events read
 * @param measured of which measured
 * @param keep99Ms allowed lateness keeping 99 % of the measured late events (-1: none measured)
 * @param keep999Ms allowed lateness keeping 99.9 % (-1: none measured)
 * @param maxMs the largest lateness needed (-1: none measured)
 */
public record LatenessAdvice(
    long allowedLatenessMs,
    long lateEvents,
    long measured,
    long keep99Ms,
    long keep999Ms,
    long maxMs) {

  /** The advice from what {@code stats} has measured. */
  public static LatenessAdvice of(SideOutputStats stats, Duration allowedLateness) {
    LatenessHistogram h = stats.lateness();
    long measured = h.total();
    return new LatenessAdvice(
        allowedLateness.toMillis(),
        stats.late(),
        measured,
        measured == 0 ? -1 : h.valueAtQuantile(0.99),
        measured == 0 ? -1 : h.valueAtQuantile(0.999),
        h.max());
  }

  /** One line for people: the log and the dashboard say the same. */
  public String text() {
    if (measured == 0) {
      return lateEvents == 0
          ? "no late events so far: allowed lateness "
              + human(allowedLatenessMs)
              + " has kept every event"
          : lateEvents + " late events, none measurable (no watermark header)";
    }
    return String.format(
        Locale.ROOT,
        "%,d late events measured: allowed lateness %s would have kept 99%%, %s 99.9%%"
            + " (now %s)",
        measured,
        human(keep99Ms),
        human(keep999Ms),
        human(allowedLatenessMs));
  }

  /**
   * A duration as a job file would write it, rounded up (so advice stays on the safe side): whole
   * milliseconds below 1 s, tenths of a second below 10 s, whole seconds above, whole minutes from
   * 10 minutes.
   */
  static String human(long ms) {
    if (ms < 1000) {
      return ms + "ms";
    }
    if (ms < 10_000) {
      long tenths = (ms + 99) / 100;
      return tenths % 10 == 0 ? (tenths / 10) + "s" : (tenths * 100) + "ms";
    }
    if (ms < 600_000) {
      return ((ms + 999) / 1000) + "s";
    }
    return ((ms + 59_999) / 60_000) + "m";
  }
}

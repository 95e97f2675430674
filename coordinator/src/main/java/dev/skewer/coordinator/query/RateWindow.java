package dev.skewer.coordinator.query;

/**
 * Events per second over the last {@value #SPAN_SECONDS} seconds, from the times at which things
 * happened (record timestamps), so a view that catches up on old records does not report them as a
 * burst now. Sixty one-second buckets; thread-safe (synchronized).
 */
public final class RateWindow {

  static final int SPAN_SECONDS = 10;
  private static final int BUCKETS = 60;

  private final long[] second = new long[BUCKETS];
  private final long[] count = new long[BUCKETS];

  /** Counts one occurrence at {@code atMs}. */
  public synchronized void add(long atMs) {
    long s = Math.floorDiv(atMs, 1000);
    int i = Math.floorMod(s, BUCKETS);
    if (second[i] != s) {
      second[i] = s;
      count[i] = 0;
    }
    count[i]++;
  }

  /** Occurrences per second over the {@value #SPAN_SECONDS} full seconds before {@code nowMs}. */
  public synchronized double perSecond(long nowMs) {
    long now = Math.floorDiv(nowMs, 1000);
    long n = 0;
    for (long s = now - SPAN_SECONDS; s < now; s++) {
      int i = Math.floorMod(s, BUCKETS);
      if (second[i] == s) {
        n += count[i];
      }
    }
    return n / (double) SPAN_SECONDS;
  }
}

package dev.skewer.coordinator.query;

import java.util.List;
import java.util.Objects;

/**
 * The speculative state of one still-open window on one partials partition: what the Partials held
 * so far (early partials included) add up to per key. Not a result: it changes until the window
 * closes.
 *
 * @param windowStartMs the window's start
 * @param windowEndMs the window's end
 * @param keys the partition's keys with the largest counts (at most what the stage chose to send),
 *     any order
 */
public record OpenWindowTotals(long windowStartMs, long windowEndMs, List<KeyTotals> keys) {

  public OpenWindowTotals {
    Objects.requireNonNull(keys, "keys");
    keys = List.copyOf(keys);
    if (windowEndMs <= windowStartMs) {
      throw new IllegalArgumentException(
          "windowEndMs must be > windowStartMs (" + windowStartMs + "), was " + windowEndMs);
    }
  }

  /**
   * One key's running totals in an open window.
   *
   * @param key the key
   * @param count events so far
   * @param sums each numeric field's sum so far (job order)
   * @param distinct the distinct-count estimate so far, NaN when the job counts none
   */
  public record KeyTotals(String key, long count, double[] sums, double distinct) {
    public KeyTotals {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(sums, "sums");
    }
  }
}

package dev.skewer.benchmarks.workload;

import dev.skewer.core.result.ResultFormatter;
import dev.skewer.sketches.Aggregate;
import dev.skewer.sketches.SketchSpec;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The baseline of W1: one thread, one map per window of key to {@link Aggregate} with the same
 * sketches, results formatted when a window closes by the same watermark rule. What the aggregation
 * costs with no distribution at all.
 */
final class PlainLoop {

  private PlainLoop() {}

  /** Runs W1 and returns {results, events counted}. */
  static long[] run(
      W1Events e, SketchSpec spec, ResultFormatter formatter, long windowMs, long delayMs) {
    TreeMap<Long, Map<String, Aggregate>> open = new TreeMap<>();
    double[] numeric = new double[1];
    long maxT = Long.MIN_VALUE;
    long results = 0;
    long events = 0;
    long bytes = 0;
    for (int i = 0; i < e.n; i++) {
      long t = e.eventTimeMs[i];
      long start = Math.floorDiv(t, windowMs) * windowMs;
      Map<String, Aggregate> window = open.get(start);
      if (window == null) {
        window = new HashMap<>();
        open.put(start, window);
      }
      Aggregate a = window.get(e.key[i]);
      if (a == null) {
        a = Aggregate.empty(spec);
        window.put(e.key[i], a);
      }
      numeric[0] = e.value[i];
      a.update(numeric, e.user[i], null, e.value[i]);
      if (t > maxT) {
        maxT = t;
        long wm = maxT - delayMs;
        while (!open.isEmpty() && open.firstKey() + windowMs <= wm) {
          var closed = open.pollFirstEntry();
          for (var entry : closed.getValue().entrySet()) {
            bytes +=
                formatter.format(
                        entry.getKey(),
                        closed.getKey(),
                        closed.getKey() + windowMs,
                        entry.getValue(),
                        0,
                        null)
                    .length;
            results++;
            events += entry.getValue().count();
          }
        }
      }
    }
    for (var closed : open.entrySet()) {
      for (var entry : closed.getValue().entrySet()) {
        bytes +=
            formatter.format(
                    entry.getKey(),
                    closed.getKey(),
                    closed.getKey() + windowMs,
                    entry.getValue(),
                    0,
                    null)
                .length;
        results++;
        events += entry.getValue().count();
      }
    }
    return new long[] {results, events, bytes};
  }
}

package dev.skewer.loadgen.reference;

import dev.skewer.core.window.HoppingSliceAssigner;
import dev.skewer.core.window.SessionSliceAssigner;
import dev.skewer.core.window.SliceAssigner;
import dev.skewer.core.window.TumblingSliceAssigner;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Brute-force ground truth for tumbling, hopping and session windows, by event time, with the
 * documented lateness rules (per result, as in Flink): events are fed in send order with the source
 * partition they were sent to; per partition the watermark W is {@code max event time seen -
 * delay}; with allowed lateness L:
 *
 * <ul>
 *   <li>tumbling: an event is late iff its window's end + L &le; W;
 *   <li>hopping: an event counts in every window containing it whose end + L &gt; W, and is late
 *       iff there is none;
 *   <li>sessions: an event is late iff the session it would form alone has closeBoundary + slice +
 *       L &le; W and it is less than the gap from no accepted event of the same key on the same
 *       partition whose session (on that partition) still has closeBoundary(last) + slice + L &gt;
 *       W (closeBoundary: the first gap/4 slice boundary at or after last + gap).
 * </ul>
 *
 * Results are computed directly from the accepted events, without slices: every window {@code
 * [k*hop, k*hop + size)} an event counts in, or every session (each key's events sorted by time,
 * split where two consecutive events are gap or more apart). Partitions judge by their own
 * watermark only: a workload that lets a partition go idle while others move on, so that it adopts
 * the cluster's frontier, is outside this reference.
 */
public final class ShapeReference {

  /** One exact result: a window or a session ({@code endMs} is the last event for sessions). */
  public record Result(
      String key, long startMs, long endMs, long count, double sum, double min, double max) {
    /** The results-topic key, {@code key@startMs}. */
    public String resultKey() {
      return key + "@" + startMs;
    }
  }

  private enum Kind {
    TUMBLING,
    HOPPING,
    SESSION
  }

  private final Kind kind;
  private final long sizeMs;
  private final long hopMs;
  private final long gapMs;
  private final SliceAssigner slices;
  private final long delayMs;
  private final long allowedLatenessMs;
  private final long[] maxEventTimeMs;
  // key -> {time, value, first window end it counts in (hopping)}
  private final Map<String, List<double[]>> accepted = new HashMap<>();
  // sessions: partition -> key -> accepted event times, to find the session an event joins
  private final List<Map<String, List<Long>>> sessionEvents = new ArrayList<>();
  private long late;

  private ShapeReference(
      Kind kind,
      long sizeMs,
      long hopMs,
      long gapMs,
      SliceAssigner slices,
      long delayMs,
      long allowedLatenessMs,
      int partitions) {
    this.kind = kind;
    this.sizeMs = sizeMs;
    this.hopMs = hopMs;
    this.gapMs = gapMs;
    this.slices = slices;
    this.delayMs = delayMs;
    this.allowedLatenessMs = allowedLatenessMs;
    this.maxEventTimeMs = new long[partitions];
    Arrays.fill(maxEventTimeMs, Long.MIN_VALUE);
    for (int p = 0; p < partitions; p++) {
      sessionEvents.add(new HashMap<>());
    }
  }

  public static ShapeReference tumbling(
      long sizeMs, long delayMs, long latenessMs, int partitions) {
    return new ShapeReference(
        Kind.TUMBLING,
        sizeMs,
        sizeMs,
        0,
        new TumblingSliceAssigner(sizeMs),
        delayMs,
        latenessMs,
        partitions);
  }

  public static ShapeReference hopping(
      long sizeMs, long hopMs, long delayMs, long latenessMs, int partitions) {
    return new ShapeReference(
        Kind.HOPPING,
        sizeMs,
        hopMs,
        0,
        new HoppingSliceAssigner(sizeMs, hopMs),
        delayMs,
        latenessMs,
        partitions);
  }

  public static ShapeReference sessions(long gapMs, long delayMs, long latenessMs, int partitions) {
    return new ShapeReference(
        Kind.SESSION,
        0,
        0,
        gapMs,
        new SessionSliceAssigner(gapMs),
        delayMs,
        latenessMs,
        partitions);
  }

  /**
   * Folds in the next event in send order, sent to source partition {@code partition}.
   *
   * @return false if the event is late (goes to the late topic)
   */
  public boolean accept(int partition, String key, long eventTimeMs, double value) {
    long max = maxEventTimeMs[partition];
    long watermark = max == Long.MIN_VALUE ? Long.MIN_VALUE : max - delayMs;
    long firstWindowEndMs = Long.MIN_VALUE;
    boolean isLate;
    switch (kind) {
      case TUMBLING ->
          isLate = pastLateness(slices.sliceEndMs(slices.sliceStartMs(eventTimeMs)), watermark);
      case HOPPING -> {
        // windows [w, w + size) containing the event, earliest first
        long first = Math.floorDiv(eventTimeMs - sizeMs, hopMs) * hopMs + hopMs + sizeMs;
        long last = Math.floorDiv(eventTimeMs, hopMs) * hopMs + sizeMs;
        long end = first;
        while (end <= last && pastLateness(end, watermark)) {
          end += hopMs;
        }
        isLate = end > last;
        firstWindowEndMs = end;
      }
      default -> isLate = lateForSessions(partition, key, eventTimeMs, watermark);
    }
    if (isLate) {
      late++;
      return false;
    }
    accepted
        .computeIfAbsent(key, k -> new ArrayList<>())
        .add(new double[] {eventTimeMs, value, firstWindowEndMs});
    if (kind == Kind.SESSION) {
      sessionEvents.get(partition).computeIfAbsent(key, k -> new ArrayList<>()).add(eventTimeMs);
    }
    if (eventTimeMs > max) {
      maxEventTimeMs[partition] = eventTimeMs;
    }
    return true;
  }

  private boolean pastLateness(long resultEndMs, long watermark) {
    return watermark != Long.MIN_VALUE && resultEndMs + allowedLatenessMs <= watermark;
  }

  private boolean lateForSessions(int partition, String key, long t, long watermark) {
    long sliceMs = SessionSliceAssigner.sliceMs(gapMs);
    if (!pastLateness(
        SessionSliceAssigner.closeBoundaryMs(t, gapMs, sliceMs) + sliceMs, watermark)) {
      return false;
    }
    List<Long> times = new ArrayList<>(sessionEvents.get(partition).getOrDefault(key, List.of()));
    Collections.sort(times);
    // this partition's sessions of the key; the event joins those with an event less than gap away
    int i = 0;
    while (i < times.size()) {
      int j = i;
      boolean near = Math.abs(times.get(i) - t) < gapMs;
      while (j + 1 < times.size() && times.get(j + 1) - times.get(j) < gapMs) {
        j++;
        near |= Math.abs(times.get(j) - t) < gapMs;
      }
      long lastMs = times.get(j);
      if (near
          && !pastLateness(
              SessionSliceAssigner.closeBoundaryMs(lastMs, gapMs, sliceMs) + sliceMs, watermark)) {
        return false;
      }
      i = j + 1;
    }
    return true;
  }

  public long late() {
    return late;
  }

  /** Every result, by result key. */
  public Map<String, Result> results() {
    Map<String, Result> results = new TreeMap<>();
    for (Map.Entry<String, List<double[]>> e : accepted.entrySet()) {
      List<double[]> events = new ArrayList<>(e.getValue());
      Collections.sort(events, (a, b) -> Double.compare(a[0], b[0]));
      if (kind == Kind.SESSION) {
        sessions(e.getKey(), events, results);
      } else {
        windows(e.getKey(), events, results);
      }
    }
    return results;
  }

  private void windows(String key, List<double[]> events, Map<String, Result> results) {
    TreeMap<Long, List<double[]>> byStart = new TreeMap<>();
    for (double[] ev : events) {
      long t = (long) ev[0];
      long firstWindowEndMs = (long) ev[2];
      for (long w = Math.floorDiv(t, hopMs) * hopMs; w > t - sizeMs; w -= hopMs) {
        if (kind == Kind.TUMBLING || w + sizeMs >= firstWindowEndMs) {
          byStart.computeIfAbsent(w, k -> new ArrayList<>()).add(ev);
        }
      }
    }
    for (Map.Entry<Long, List<double[]>> w : byStart.entrySet()) {
      Result r = result(key, w.getKey(), w.getKey() + sizeMs, w.getValue());
      results.put(r.resultKey(), r);
    }
  }

  private void sessions(String key, List<double[]> events, Map<String, Result> results) {
    List<double[]> session = new ArrayList<>();
    for (double[] ev : events) {
      if (!session.isEmpty() && (long) ev[0] - (long) session.get(session.size() - 1)[0] >= gapMs) {
        Result r =
            result(
                key, (long) session.get(0)[0], (long) session.get(session.size() - 1)[0], session);
        results.put(r.resultKey(), r);
        session = new ArrayList<>();
      }
      session.add(ev);
    }
    if (!session.isEmpty()) {
      Result r =
          result(key, (long) session.get(0)[0], (long) session.get(session.size() - 1)[0], session);
      results.put(r.resultKey(), r);
    }
  }

  private static Result result(String key, long startMs, long endMs, List<double[]> events) {
    double sum = 0;
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    for (double[] ev : events) {
      sum += ev[1];
      min = Math.min(min, ev[1]);
      max = Math.max(max, ev[1]);
    }
    return new Result(key, startMs, endMs, events.size(), sum, min, max);
  }
}

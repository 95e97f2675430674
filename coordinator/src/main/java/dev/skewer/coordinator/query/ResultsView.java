package dev.skewer.coordinator.query;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The results of the most recent windows, every key of each: what the top-K, per-key and window
 * queries answer from on every coordinator.
 *
 * <p><b>Bound.</b> At most {@code maxBytes} of estimated heap ({@link
 * StoredResult#estimatedBytes()}: 192 bytes + 2 per key character + the envelope's bytes); when a
 * result takes the view over, whole windows are evicted, oldest start first, so every retained
 * window is complete and its top-K exact for any k. The newest window is never evicted, even when
 * it alone is larger than the bound. A result for a window older than every retained window, once
 * one has been evicted, is dropped and counted ({@link #droppedOld()}).
 *
 * <p><b>Upserts.</b> Per (key, window) the highest revision wins; a record with a revision at or
 * below the held one (a replay, a compacted re-read) changes nothing.
 *
 * <p>Thread-safe: one writer (the consumer thread), any number of readers.
 */
public final class ResultsView {

  private final long maxBytes;
  private final ConcurrentSkipListMap<Long, WindowResults> windows = new ConcurrentSkipListMap<>();
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicLong evictedWindows = new AtomicLong();
  private final AtomicLong droppedOld = new AtomicLong();
  private final AtomicLong records = new AtomicLong();
  private final RateWindow rate = new RateWindow();
  private volatile long evictedThroughStartMs = Long.MIN_VALUE;

  public ResultsView(long maxBytes) {
    if (maxBytes < 1) {
      throw new IllegalArgumentException("maxBytes must be >= 1, was " + maxBytes);
    }
    this.maxBytes = maxBytes;
  }

  /** Applies one result; {@code nowMs} is the wall clock, {@code recordMs} the record's time. */
  public void add(StoredResult r, long nowMs, long recordMs) {
    records.incrementAndGet();
    rate.add(recordMs);
    if (r.windowStartMs() <= evictedThroughStartMs) {
      droppedOld.incrementAndGet();
      return;
    }
    WindowResults w =
        windows.computeIfAbsent(
            r.windowStartMs(), s -> new WindowResults(s, r.windowEndMs(), nowMs));
    bytes.addAndGet(w.apply(r, nowMs));
    while (bytes.get() > maxBytes && windows.size() > 1) {
      Map.Entry<Long, WindowResults> oldest = windows.pollFirstEntry();
      bytes.addAndGet(-oldest.getValue().estimatedBytes());
      evictedThroughStartMs = Math.max(evictedThroughStartMs, oldest.getKey());
      evictedWindows.incrementAndGet();
    }
  }

  /** A retained window by start, or null. */
  public WindowResults window(long startMs) {
    return windows.get(startMs);
  }

  /** The retained windows, by start. A live view: iterate, do not hold. */
  public NavigableMap<Long, WindowResults> windows() {
    return java.util.Collections.unmodifiableNavigableMap(windows);
  }

  /** A key's results with window start in {@code [fromMs, toMs)}, oldest first. */
  public List<StoredResult> key(String key, long fromMs, long toMs) {
    List<StoredResult> out = new ArrayList<>();
    if (fromMs >= toMs) {
      return out;
    }
    for (WindowResults w : windows.subMap(fromMs, true, toMs, false).values()) {
      StoredResult r = w.get(key);
      if (r != null) {
        out.add(r);
      }
    }
    return out;
  }

  /** Estimated heap bytes held. */
  public long bytes() {
    return bytes.get();
  }

  public long maxBytes() {
    return maxBytes;
  }

  /** Windows evicted to stay within the bound. */
  public long evictedWindows() {
    return evictedWindows.get();
  }

  /** Start of the newest evicted window (results at or before it are dropped), or MIN_VALUE. */
  public long evictedThroughStartMs() {
    return evictedThroughStartMs;
  }

  /** Results dropped because their window was older than every retained one. */
  public long droppedOld() {
    return droppedOld.get();
  }

  /** Result records read. */
  public long records() {
    return records.get();
  }

  /** Result records per second (by record time) over the last ten seconds. */
  public double recordsPerSecond(long nowMs) {
    return rate.perSecond(nowMs);
  }
}

package dev.skewer.coordinator.query;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The results of the most recent windows, every key of each: what the top-K, per-key and window
 * queries answer from on every coordinator — the one top-K index of the cluster.
 *
 * <p><b>Complete windows only.</b> The view is fed the results topic from its beginning ({@link
 * ViewConsumer}); the topic is a compacted upsert log, so it holds every (key, window)'s latest
 * result, and a window the view holds has every key's latest result once the view has read what the
 * topic held when it started ({@link #caughtUp()}). Until then the queries answer 503. Nothing else
 * can make a retained window partial: a result for a window the view does not hold either starts
 * that window (no earlier result of it exists on the topic) or is for an evicted window and is
 * dropped (see below); a revision replaces its key's entry and leaves every other key alone.
 *
 * <p><b>Bound.</b> At most {@code maxBytes} of estimated heap ({@link
 * StoredResult#estimatedBytes()}: 192 bytes + 2 per key character + the envelope's bytes); when a
 * result takes the view over, whole windows are evicted, oldest start first, so every retained
 * window is complete and its top-K exact for any k. The newest window is never evicted, even when
 * it alone is larger than the bound. A result for a window at or before the newest evicted start is
 * dropped and counted ({@link #droppedOld()}): that window is no longer answered (404), rather than
 * answered from that one result.
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
  private volatile boolean caughtUp;

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

  /**
   * Marks that the view has read every record the results topic held when its reader started: from
   * now on every retained window is complete. Called by the reader, once.
   */
  public void markCaughtUp() {
    caughtUp = true;
  }

  /** Whether the view has read what the results topic held when its reader started. */
  public boolean caughtUp() {
    return caughtUp;
  }

  /** A retained window by start, or null. */
  public WindowResults window(long startMs) {
    return windows.get(startMs);
  }

  /** The retained windows, by start. A live view: iterate, do not hold. */
  public NavigableMap<Long, WindowResults> windows() {
    return Collections.unmodifiableNavigableMap(windows);
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

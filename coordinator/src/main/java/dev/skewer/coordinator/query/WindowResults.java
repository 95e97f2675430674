package dev.skewer.coordinator.query;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Every key's latest result of one window, as the view has read them. Thread-safe: one writer (the
 * view's consumer thread), any number of readers; rankings are computed on demand and cached until
 * the window changes.
 */
public final class WindowResults {

  private final long startMs;
  private volatile long endMs;
  private final Map<String, StoredResult> byKey = new ConcurrentHashMap<>();
  private final AtomicLong records = new AtomicLong();
  private final AtomicLong revisions = new AtomicLong();
  private final AtomicLong version = new AtomicLong();
  private final long firstResultMs;
  private volatile long lastResultMs;
  private final Map<Ranking, Ranked> rankings = new ConcurrentHashMap<>();

  WindowResults(long startMs, long endMs, long firstResultMs) {
    this.startMs = startMs;
    this.endMs = endMs;
    this.firstResultMs = firstResultMs;
    this.lastResultMs = firstResultMs;
  }

  /**
   * Applies a result read from the topic: it replaces the key's held result unless that one has a
   * higher or equal revision (a replay). Returns the change in estimated bytes.
   */
  long apply(StoredResult r, long nowMs) {
    records.incrementAndGet();
    if (r.revision() > 0) {
      revisions.incrementAndGet();
    }
    StoredResult held = byKey.get(r.key());
    if (held != null && held.revision() >= r.revision()) {
      return 0;
    }
    byKey.put(r.key(), r);
    endMs = Math.max(endMs, r.windowEndMs());
    lastResultMs = nowMs;
    version.incrementAndGet();
    return r.estimatedBytes() - (held == null ? 0 : held.estimatedBytes());
  }

  public long startMs() {
    return startMs;
  }

  public long endMs() {
    return endMs;
  }

  /** Keys with a result. */
  public int keys() {
    return byKey.size();
  }

  /** Result records read for this window, revisions and replays included. */
  public long records() {
    return records.get();
  }

  /** Records read with revision > 0. */
  public long revisions() {
    return revisions.get();
  }

  /** Wall-clock time the view read this window's first result. */
  public long firstResultMs() {
    return firstResultMs;
  }

  /** Wall-clock time the view last changed this window. */
  public long lastResultMs() {
    return lastResultMs;
  }

  /** A key's latest result, or null. */
  public StoredResult get(String key) {
    return byKey.get(key);
  }

  Collection<StoredResult> all() {
    return byKey.values();
  }

  long estimatedBytes() {
    long b = 0;
    for (StoredResult r : byKey.values()) {
      b += r.estimatedBytes();
    }
    return b;
  }

  /** The first {@code k} results by {@code ranking}, superseded sessions left out. */
  public List<StoredResult> top(Ranking ranking, int k) {
    long v = version.get();
    Ranked cached = rankings.get(ranking);
    if (cached == null || cached.version != v) {
      List<StoredResult> live = new ArrayList<>(byKey.size());
      for (StoredResult r : byKey.values()) {
        if (!r.superseded()) {
          live.add(r);
        }
      }
      StoredResult[] sorted = live.toArray(new StoredResult[0]);
      Arrays.sort(sorted, ranking.order());
      cached = new Ranked(v, sorted);
      rankings.put(ranking, cached);
    }
    StoredResult[] sorted = cached.sorted;
    return Arrays.asList(Arrays.copyOf(sorted, Math.min(k, sorted.length)));
  }

  private record Ranked(long version, StoredResult[] sorted) {}
}

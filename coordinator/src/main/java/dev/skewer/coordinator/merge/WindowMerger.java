package dev.skewer.coordinator.merge;

import dev.skewer.core.wire.Partial;
import dev.skewer.core.wire.Watermark;
import dev.skewer.sketches.Aggregate;
import dev.skewer.sketches.AggregateCodec;
import dev.skewer.sketches.SketchSpec;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * Merges the Partials of one partials partition into final Results (EMIT FINAL).
 *
 * <p>Contract:
 *
 * <ul>
 *   <li>Per (key, window) it keeps the latest Partial of each source partition: a Partial
 *       replaces the one held for its source (never adds), so a replayed Partial is idempotent.
 *       Among Partials of one source, a higher epoch wins, then a higher version; an older one is
 *       ignored.
 *   <li>When the global watermark ({@link SourceWatermarks#global()}) reaches a window's end,
 *       every (key, window) of it is merged — in source-partition order, never arrival order, so
 *       the result bytes do not depend on timing — and emitted once with revision 0.
 *   <li>Until the global watermark reaches end + allowed lateness, a Partial that changes a
 *       finalised (key, window) yields the next revision on the next {@link #advance}. After
 *       that the window is dropped; a Partial for a dropped window is counted in {@link
 *       #latePartials()} and ignored.
 * </ul>
 *
 * <p>Not thread-safe: one owner (the coordinator verticle's event loop).
 */
public final class WindowMerger {

  // configuration
  private final long allowedLatenessMs;
  private final SketchSpec sketchSpec;

  // state
  private final SourceWatermarks watermarks;
  private final TreeMap<Long, WindowEntry> windows = new TreeMap<>(); // by window end
  private long droppedThroughMs = Long.MIN_VALUE; // windows ending at or before this are gone
  private long latePartials;
  private long stalePartials;
  private long heldPartials;

  public WindowMerger(int sourcePartitions, long allowedLatenessMs, SketchSpec sketchSpec) {
    if (allowedLatenessMs < 0) {
      throw new IllegalArgumentException("allowedLatenessMs must be >= 0, was " + allowedLatenessMs);
    }
    this.watermarks = new SourceWatermarks(sourcePartitions);
    this.allowedLatenessMs = allowedLatenessMs;
    this.sketchSpec = sketchSpec;
  }

  /** Applies a Partial; see the class contract. */
  public void accept(Partial p) {
    if (!watermarks.admitEpoch(p.sourcePartition(), p.epoch())) {
      stalePartials++;
      return;
    }
    if (p.windowEndMs() <= droppedThroughMs) {
      latePartials++;
      return;
    }
    WindowEntry window = windows.get(p.windowEndMs());
    if (window == null) {
      window = new WindowEntry(p.windowStartMs(), p.windowEndMs());
      windows.put(p.windowEndMs(), window);
    }
    KeyWindow kw = window.keys.get(p.key());
    if (kw == null) {
      kw = new KeyWindow(watermarks.sourcePartitions());
      window.keys.put(p.key(), kw);
    }
    int s = p.sourcePartition();
    if (s >= kw.bySource.length) {
      kw.bySource = Arrays.copyOf(kw.bySource, Math.max(s + 1, watermarks.sourcePartitions()));
    }
    Partial held = kw.bySource[s];
    if (held != null) {
      if (p.epoch() < held.epoch() || (p.epoch() == held.epoch() && p.version() < held.version())) {
        stalePartials++;
        return;
      }
      if (Arrays.equals(held.aggregate(), p.aggregate())) {
        kw.bySource[s] = p; // same content: nothing to revise
        return;
      }
    } else {
      heldPartials++;
    }
    kw.bySource[s] = p;
    if (!kw.changed) {
      kw.changed = true;
      window.changedKeys++;
    }
  }

  /**
   * Applies a watermark message.
   *
   * @return false if it was refused as stale
   */
  public boolean accept(Watermark w) {
    return watermarks.update(w);
  }

  /** Grows the source partition count (from topic metadata). */
  public void resizeSources(int sourcePartitions) {
    watermarks.resize(sourcePartitions);
  }

  /**
   * Emits final results and revisions for every window the global watermark has closed, then
   * drops windows past their allowed lateness.
   *
   * @return the number of results emitted
   */
  public int advance(ResultSink sink) {
    long global = watermarks.global();
    if (global == Long.MIN_VALUE) {
      return 0;
    }
    int emitted = 0;
    Iterator<Map.Entry<Long, WindowEntry>> it = windows.entrySet().iterator();
    while (it.hasNext()) {
      WindowEntry window = it.next().getValue();
      if (window.endMs > global) {
        break;
      }
      if (window.changedKeys > 0) {
        for (Map.Entry<String, KeyWindow> e : window.keys.entrySet()) {
          KeyWindow kw = e.getValue();
          if (!kw.changed) {
            continue;
          }
          kw.changed = false;
          kw.revision++;
          sink.accept(
              new FinalResult(e.getKey(), window.startMs, window.endMs, merge(kw), kw.revision));
          emitted++;
        }
        window.changedKeys = 0;
      }
      if (saturatingAdd(window.endMs, allowedLatenessMs) <= global) {
        for (KeyWindow kw : window.keys.values()) {
          for (Partial p : kw.bySource) {
            if (p != null) {
              heldPartials--;
            }
          }
        }
        it.remove();
        droppedThroughMs = Math.max(droppedThroughMs, window.endMs);
      }
    }
    return emitted;
  }

  /** The merged aggregate of a held (key, window), or null if none is held. */
  public Aggregate merged(String key, long windowEndMs) {
    WindowEntry window = windows.get(windowEndMs);
    if (window == null) {
      return null;
    }
    KeyWindow kw = window.keys.get(key);
    return kw == null ? null : merge(kw);
  }

  /** Merges the held Partials of a (key, window) in source-partition order. */
  private Aggregate merge(KeyWindow kw) {
    Aggregate merged = Aggregate.empty(sketchSpec);
    for (Partial p : kw.bySource) { // canonical order: by source partition
      if (p != null) {
        merged.merge(AggregateCodec.decode(p.aggregate()));
      }
    }
    return merged;
  }

  public long globalWatermarkMs() {
    return watermarks.global();
  }

  public SourceWatermarks watermarks() {
    return watermarks;
  }

  /** Partials that arrived for windows already dropped (after allowed lateness). */
  public long latePartials() {
    return latePartials;
  }

  /** Partials refused for an older epoch or version than one already held. */
  public long stalePartials() {
    return stalePartials;
  }

  /** Partials currently held. */
  public long heldPartials() {
    return heldPartials;
  }

  /** Windows currently held. */
  public int openWindows() {
    return windows.size();
  }

  private static long saturatingAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
  }

  private static final class WindowEntry {
    final long startMs;
    final long endMs;
    final HashMap<String, KeyWindow> keys = new HashMap<>();
    int changedKeys;

    WindowEntry(long startMs, long endMs) {
      this.startMs = startMs;
      this.endMs = endMs;
    }
  }

  private static final class KeyWindow {
    Partial[] bySource;
    int revision = -1;
    boolean changed;

    KeyWindow(int sources) {
      bySource = new Partial[sources];
    }
  }
}

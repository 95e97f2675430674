package dev.skewer.coordinator.merge;

import dev.skewer.core.wire.Partial;
import dev.skewer.sketches.Aggregate;
import dev.skewer.sketches.SketchSpec;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * Tumbling windows: a slice is a window. Per (key, window) the latest Partial of each source
 * ({@link SourcePartials}); when the close watermark reaches a window's end every key of it is
 * merged and emitted once (revision 0); until end + allowed lateness a Partial that changes a (key,
 * window) yields the next revision on the next advance; then the window is dropped and later
 * Partials for it are {@link SliceMerge.Outcome#LATE}. Not thread-safe.
 */
final class TumblingMerge implements SliceMerge {

  // configuration
  private final long allowedLatenessMs;
  private final SketchSpec sketchSpec;

  // checkpointed state
  private final TreeMap<Long, WindowEntry> windows = new TreeMap<>(); // by window end
  private long droppedThroughMs = Long.MIN_VALUE; // windows ending at or before this are gone

  // derived
  private long heldPartials;

  TumblingMerge(long allowedLatenessMs, SketchSpec sketchSpec) {
    this.allowedLatenessMs = allowedLatenessMs;
    this.sketchSpec = sketchSpec;
  }

  @Override
  public Outcome accept(Partial p, int sourcePartitions) {
    if (p.sliceEndMs() <= droppedThroughMs) {
      return Outcome.LATE;
    }
    WindowEntry window =
        windows.computeIfAbsent(
            p.sliceEndMs(), end -> new WindowEntry(p.sliceStartMs(), p.sliceEndMs()));
    if (window.startMs != p.sliceStartMs()) {
      return Outcome.MISMATCHED;
    }
    KeyWindow kw = window.keys.computeIfAbsent(p.key(), k -> new KeyWindow(sourcePartitions));
    int heldBefore = kw.sources.held();
    Outcome outcome = kw.sources.offer(p);
    heldPartials += kw.sources.held() - heldBefore;
    if (outcome == Outcome.CHANGED && !kw.changed) {
      kw.changed = true;
      window.changedKeys++;
    }
    return outcome;
  }

  @Override
  public int advance(long closeMs, long latenessMs, ResultSink sink) {
    int emitted = 0;
    Iterator<Map.Entry<Long, WindowEntry>> it = windows.entrySet().iterator();
    while (it.hasNext()) {
      WindowEntry window = it.next().getValue();
      if (window.endMs > closeMs) {
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
          Partial earliest = kw.sources.earliest();
          ResultSources.Builder sources = new ResultSources.Builder();
          kw.sources.addSourcesTo(sources);
          sink.accept(
              new FinalResult(
                  e.getKey(),
                  window.startMs,
                  window.endMs,
                  kw.sources.merged(sketchSpec),
                  kw.revision,
                  earliest == null ? null : earliest.dimensions(),
                  FinalResult.NOT_SUPERSEDED,
                  sources.build()));
          emitted++;
        }
        window.changedKeys = 0;
      }
      if (Snapshots.saturatingAdd(window.endMs, allowedLatenessMs) <= latenessMs) {
        for (KeyWindow kw : window.keys.values()) {
          heldPartials -= kw.sources.held();
        }
        it.remove();
        droppedThroughMs = Math.max(droppedThroughMs, window.endMs);
      }
    }
    return emitted;
  }

  /** The merged aggregate of a held (key, window), or null. */
  Aggregate merged(String key, long windowEndMs) {
    WindowEntry window = windows.get(windowEndMs);
    KeyWindow kw = window == null ? null : window.keys.get(key);
    return kw == null ? null : kw.sources.merged(sketchSpec);
  }

  @Override
  public long heldPartials() {
    return heldPartials;
  }

  @Override
  public int openWindows() {
    return windows.size();
  }

  @Override
  public void writeTo(DataOutputStream out) throws IOException {
    out.writeLong(droppedThroughMs);
    out.writeInt(windows.size());
    for (WindowEntry w : windows.values()) {
      out.writeLong(w.startMs);
      out.writeLong(w.endMs);
      out.writeInt(w.keys.size());
      for (Map.Entry<String, KeyWindow> e : w.keys.entrySet()) {
        Snapshots.writeString(out, e.getKey());
        KeyWindow kw = e.getValue();
        out.writeInt(kw.revision);
        out.writeByte(kw.changed ? 1 : 0);
        kw.sources.writeTo(out);
      }
    }
  }

  /** Reads what {@link #writeTo} wrote (also the tumbling part of format-1 snapshots). */
  static TumblingMerge readFrom(
      ByteBuffer in, long allowedLatenessMs, SketchSpec sketchSpec, int sourcePartitions) {
    TumblingMerge m = new TumblingMerge(allowedLatenessMs, sketchSpec);
    m.droppedThroughMs = in.getLong();
    int windowCount = Snapshots.count(in, 20);
    for (int i = 0; i < windowCount; i++) {
      WindowEntry w = new WindowEntry(in.getLong(), in.getLong());
      int keys = Snapshots.count(in, 13);
      for (int k = 0; k < keys; k++) {
        String key = Snapshots.readString(in);
        KeyWindow kw = new KeyWindow(0);
        kw.revision = in.getInt();
        kw.changed = in.get() != 0;
        kw.sources = SourcePartials.readFrom(in, sourcePartitions);
        m.heldPartials += kw.sources.held();
        if (kw.changed) {
          w.changedKeys++;
        }
        w.keys.put(key, kw);
      }
      m.windows.put(w.endMs, w);
    }
    return m;
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
    SourcePartials sources;
    int revision = -1;
    boolean changed;

    KeyWindow(int sources) {
      this.sources = new SourcePartials(sources);
    }
  }
}

package dev.skewer.coordinator.merge;

import dev.skewer.core.checkpoint.CheckpointFormatException;
import dev.skewer.core.job.WindowSpec;
import dev.skewer.core.window.SliceAssigner;
import dev.skewer.core.window.WindowShape;
import dev.skewer.core.wire.Partial;
import dev.skewer.core.wire.Watermark;
import dev.skewer.core.wire.WireFormatException;
import dev.skewer.sketches.Aggregate;
import dev.skewer.sketches.AggregateCodec;
import dev.skewer.sketches.SketchSpec;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * Merges the Partials of one partials partition into final Results (EMIT FINAL), for every window
 * shape: tumbling windows here, hopping windows in {@link HoppingMerge} (windows composed from
 * slices), sessions in {@link SessionMerge} (sessions chained from slice extents). The shape comes
 * with the Partials ({@link Partial#shape()}), so the merger needs no window configuration; a
 * merger serves one shape, fixed by the constructor or by the first Partial, and refuses Partials
 * of another ({@link #mismatchedPartials()}).
 *
 * <p>Contract (tumbling; the other shapes follow the same rules per slice and compose results from
 * slices, see their classes):
 *
 * <ul>
 *   <li>Per (key, window) it keeps the latest Partial of each source partition: a Partial replaces
 *       the one held for its source (never adds), so a replayed Partial is idempotent. Among
 *       Partials of one source, a higher epoch wins, then a higher version; an older one is
 *       ignored.
 *   <li>When the global watermark ({@link SourceWatermarks#global()}) reaches a window's end, every
 *       (key, window) of it is merged — in source-partition order, never arrival order, so the
 *       result bytes do not depend on timing — and emitted once with revision 0.
 *   <li>Until the global watermark reaches end + allowed lateness, a Partial that changes a
 *       finalised (key, window) yields the next revision on the next {@link #advance}. After that
 *       the window is dropped; a Partial for a dropped window is counted in {@link #latePartials()}
 *       and ignored.
 * </ul>
 *
 * <p>Not thread-safe: one owner (the coordinator verticle's event loop).
 */
public final class WindowMerger {

  // configuration
  private final long allowedLatenessMs;
  private final SketchSpec sketchSpec;

  // state
  private SourceWatermarks watermarks;
  private final TreeMap<Long, WindowEntry> windows = new TreeMap<>(); // by window end
  private long droppedThroughMs = Long.MIN_VALUE; // windows ending at or before this are gone
  private long latePartials;
  private long stalePartials;
  private long heldPartials;
  private WindowShape shape; // null until fixed by the constructor or the first Partial
  private SliceMerge sliced; // hopping or session; null for tumbling
  private long mismatchedPartials;

  /** A merger whose window shape is that of the first Partial it accepts. */
  public WindowMerger(int sourcePartitions, long allowedLatenessMs, SketchSpec sketchSpec) {
    if (allowedLatenessMs < 0) {
      throw new IllegalArgumentException(
          "allowedLatenessMs must be >= 0, was " + allowedLatenessMs);
    }
    this.watermarks = new SourceWatermarks(sourcePartitions);
    this.allowedLatenessMs = allowedLatenessMs;
    this.sketchSpec = sketchSpec;
  }

  /** A merger for the windows of {@code window}; Partials of another shape are refused. */
  public WindowMerger(
      WindowSpec window, int sourcePartitions, long allowedLatenessMs, SketchSpec sketchSpec) {
    this(sourcePartitions, allowedLatenessMs, sketchSpec);
    fixShape(SliceAssigner.of(window).shape());
  }

  private void fixShape(WindowShape s) {
    shape = s;
    if (s instanceof WindowShape.Hopping h) {
      sliced = new HoppingMerge(h, allowedLatenessMs, sketchSpec);
    } else if (s instanceof WindowShape.Session w) {
      sliced = new SessionMerge(w, allowedLatenessMs, sketchSpec);
    }
  }

  /** The window shape merged, or null before the first Partial. */
  public WindowShape shape() {
    return shape;
  }

  /** Applies a Partial; see the class contract. */
  public void accept(Partial p) {
    if (!watermarks.admitEpoch(p.sourcePartition(), p.epoch())) {
      stalePartials++;
      return;
    }
    if (shape == null) {
      fixShape(p.shape());
    } else if (!shape.equals(p.shape())) {
      mismatchedPartials++;
      return;
    }
    if (sliced != null) {
      switch (sliced.accept(p, watermarks.sourcePartitions())) {
        case STALE:
          stalePartials++;
          break;
        case LATE:
          latePartials++;
          break;
        case MISMATCHED:
          mismatchedPartials++;
          break;
        default:
          break;
      }
      return;
    }
    if (p.sliceEndMs() <= droppedThroughMs) {
      latePartials++;
      return;
    }
    WindowEntry window = windows.get(p.sliceEndMs());
    if (window == null) {
      window = new WindowEntry(p.sliceStartMs(), p.sliceEndMs());
      windows.put(p.sliceEndMs(), window);
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
   * Emits final results and revisions for every window the global watermark has closed, then drops
   * windows past their allowed lateness.
   *
   * @return the number of results emitted
   */
  public int advance(ResultSink sink) {
    long global = watermarks.global();
    if (global == Long.MIN_VALUE) {
      return 0;
    }
    if (sliced != null) {
      return sliced.advance(global, sink);
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
              new FinalResult(
                  e.getKey(),
                  window.startMs,
                  window.endMs,
                  merge(kw),
                  kw.revision,
                  dimensions(kw),
                  FinalResult.NOT_SUPERSEDED));
          emitted++;
        }
        window.changedKeys = 0;
      }
      if (Snapshots.saturatingAdd(window.endMs, allowedLatenessMs) <= global) {
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

  /**
   * The merged aggregate of a held (key, window) — for sessions (key, session start) — or null if
   * none is held.
   */
  public Aggregate merged(String key, long windowEndMs) {
    if (sliced instanceof HoppingMerge h) {
      return h.merged(key, windowEndMs);
    }
    if (sliced instanceof SessionMerge s) {
      return s.merged(key, windowEndMs);
    }
    WindowEntry window = windows.get(windowEndMs);
    if (window == null) {
      return null;
    }
    KeyWindow kw = window.keys.get(key);
    return kw == null ? null : merge(kw);
  }

  /** The dimensions of the earliest event of a (key, window); lowest source on ties. */
  private static String[] dimensions(KeyWindow kw) {
    String[] dimensions = null;
    long earliest = Long.MAX_VALUE;
    for (Partial p : kw.bySource) {
      if (p != null && p.firstEventMs() < earliest) {
        earliest = p.firstEventMs();
        dimensions = p.dimensions();
      }
    }
    return dimensions;
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

  /** Partials refused because their window shape or slice length is not this merger's. */
  public long mismatchedPartials() {
    return mismatchedPartials;
  }

  /** Partials currently held. */
  public long heldPartials() {
    return sliced != null ? sliced.heldPartials() : heldPartials;
  }

  /** Windows currently held (hopping: slices; sessions: keys with sessions). */
  public int openWindows() {
    return sliced != null ? sliced.openWindows() : windows.size();
  }

  private static final byte SNAPSHOT_VERSION = 1;
  private static final byte SNAPSHOT_VERSION_SLICED = 2;

  /**
   * The whole state, encoded: the per-source watermarks and epochs, the dropped-through bound, and
   * per held (key, window) its revision, changed flag and the held Partial of each source (wire
   * encoding). Restoring it and replaying the partials topic from the same offset yields the same
   * results.
   */
  public byte[] snapshot() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(1024);
    if (sliced != null) {
      // version 2: watermarks, shape, the sliced engine's state
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        out.writeByte(SNAPSHOT_VERSION_SLICED);
        watermarks.writeTo(out);
        out.writeByte(shape.code());
        if (shape instanceof WindowShape.Hopping h) {
          out.writeLong(h.sizeMs());
          out.writeLong(h.hopMs());
        } else {
          out.writeLong(((WindowShape.Session) shape).gapMs());
          out.writeLong(0);
        }
        out.writeLong(stalePartials);
        out.writeLong(latePartials);
        sliced.writeTo(out);
      } catch (IOException e) {
        throw new UncheckedIOException(e); // in-memory stream: cannot happen
      }
      return bytes.toByteArray();
    }
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(SNAPSHOT_VERSION);
      watermarks.writeTo(out);
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
          Snapshots.writeSources(out, kw.bySource);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e); // in-memory stream: cannot happen
    }
    return bytes.toByteArray();
  }

  /**
   * Rebuilds a merger from {@link #snapshot} bytes.
   *
   * @throws CheckpointFormatException if the bytes are not a valid snapshot
   */
  public static WindowMerger restore(
      byte[] snapshot, int sourcePartitions, long allowedLatenessMs, SketchSpec sketchSpec) {
    try {
      ByteBuffer in = ByteBuffer.wrap(snapshot);
      byte version = in.get();
      if (version == SNAPSHOT_VERSION_SLICED) {
        return restoreSliced(in, sourcePartitions, allowedLatenessMs, sketchSpec);
      }
      if (version != SNAPSHOT_VERSION) {
        throw new CheckpointFormatException("unknown coordinator snapshot version " + version);
      }
      WindowMerger m = new WindowMerger(sourcePartitions, allowedLatenessMs, sketchSpec);
      m.watermarks = SourceWatermarks.readFrom(in, sourcePartitions);
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
          kw.bySource = Snapshots.readSources(in, m.watermarks.sourcePartitions());
          m.heldPartials += Snapshots.held(kw.bySource);
          if (kw.changed) {
            w.changedKeys++;
          }
          w.keys.put(key, kw);
        }
        m.windows.put(w.endMs, w);
      }
      if (in.hasRemaining()) {
        throw new CheckpointFormatException(
            in.remaining() + " trailing bytes in coordinator snapshot");
      }
      return m;
    } catch (BufferUnderflowException | WireFormatException e) {
      throw new CheckpointFormatException("corrupt coordinator snapshot: " + e, e);
    }
  }

  private static WindowMerger restoreSliced(
      ByteBuffer in, int sourcePartitions, long allowedLatenessMs, SketchSpec sketchSpec) {
    WindowMerger m = new WindowMerger(sourcePartitions, allowedLatenessMs, sketchSpec);
    m.watermarks = SourceWatermarks.readFrom(in, sourcePartitions);
    byte code = in.get();
    long a = in.getLong();
    long b = in.getLong();
    try {
      if (code == 1) {
        m.shape = new WindowShape.Hopping(a, b);
      } else if (code == 2) {
        m.shape = new WindowShape.Session(a);
      } else {
        throw new CheckpointFormatException("unknown window shape " + code + " in snapshot");
      }
    } catch (IllegalArgumentException e) {
      throw new CheckpointFormatException("invalid window shape in snapshot: " + e.getMessage(), e);
    }
    m.stalePartials = in.getLong();
    m.latePartials = in.getLong();
    int sources = m.watermarks.sourcePartitions();
    m.sliced =
        m.shape instanceof WindowShape.Hopping h
            ? HoppingMerge.readFrom(in, h, allowedLatenessMs, sketchSpec, sources)
            : SessionMerge.readFrom(
                in, (WindowShape.Session) m.shape, allowedLatenessMs, sketchSpec, sources);
    if (in.hasRemaining()) {
      throw new CheckpointFormatException(
          in.remaining() + " trailing bytes in coordinator snapshot");
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
    Partial[] bySource;
    int revision = -1;
    boolean changed;

    KeyWindow(int sources) {
      bySource = new Partial[sources];
    }
  }
}

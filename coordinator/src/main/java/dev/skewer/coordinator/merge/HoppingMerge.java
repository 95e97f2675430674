package dev.skewer.coordinator.merge;

import dev.skewer.core.window.WindowShape;
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
import java.util.TreeSet;

/**
 * Hopping windows composed from slices: per (key, slice, first window end) the latest Partial of
 * each source ({@link SourcePartials}). A slice's Partials normally count in every window
 * containing the slice; events a node took in after some of those windows were past lateness travel
 * with a later {@linkplain Partial#firstWindowEndMs() first window end} and count only from that
 * window on (lateness per window, as in Flink).
 *
 * <p>Window {@code [e - size, e)} (e on the grid {@code k*hop + size}) is closed when the close
 * watermark reaches e and emitted once per key with data in it (revision 0), merging its slices in
 * slice, then first-window-end, then source order. A Partial that changes a slice after one of its
 * windows closed revises every closed, not yet dropped window it counts in (a key's first data in a
 * closed window is that window's revision 0). A window is dropped when the lateness watermark
 * reaches its end + allowed lateness; a slice with its last window.
 *
 * <p>Implementation note: composing costs size/slice merges per (key, window); a two-stacks or DABA
 * sliding aggregation (Tangwongsan et al., 2017) would make that O(1) amortised, but t-digest
 * merging is not associative and results must not depend on timing, so windows are merged from
 * slices in one canonical order. Not thread-safe.
 */
final class HoppingMerge implements SliceMerge {

  // configuration
  private final WindowShape.Hopping shape;
  private final long sizeMs;
  private final long hopMs;
  private final long allowedLatenessMs;
  private final SketchSpec sketchSpec;

  // checkpointed state
  private final TreeMap<Long, HashMap<String, KeySlice>> slices = new TreeMap<>();
  private long closedThroughMs = Long.MIN_VALUE; // windows ending at or before are closed
  private long droppedThroughMs = Long.MIN_VALUE; // windows ending at or before are dropped
  // per window end: key -> last revision, only for windows revised or first emitted late
  private final TreeMap<Long, HashMap<String, Integer>> revisions = new TreeMap<>();
  // parts changed after one of their windows closed: slice start -> key -> lowest changed cut
  private final TreeMap<Long, TreeMap<String, Long>> lateChanged = new TreeMap<>();

  // derived
  private long heldPartials;

  HoppingMerge(WindowShape.Hopping shape, long allowedLatenessMs, SketchSpec sketchSpec) {
    this.shape = shape;
    this.sizeMs = shape.sizeMs();
    this.hopMs = shape.hopMs();
    this.allowedLatenessMs = allowedLatenessMs;
    this.sketchSpec = sketchSpec;
  }

  @Override
  public Outcome accept(Partial p, int sourcePartitions) {
    long s = p.sliceStartMs();
    if (p.sliceEndMs() - s != shape.sliceMs() || Math.floorMod(s, shape.sliceMs()) != 0) {
      return Outcome.MISMATCHED;
    }
    long cut = p.firstWindowEndMs();
    if (cut < shape.firstWindowEndMs(s)
        || cut > shape.lastWindowEndMs(s)
        || Math.floorMod(cut - sizeMs, hopMs) != 0) {
      return Outcome.MISMATCHED;
    }
    if (shape.lastWindowEndMs(s) <= droppedThroughMs) {
      return Outcome.LATE;
    }
    KeySlice ks = slices.computeIfAbsent(s, k -> new HashMap<>()).get(p.key());
    if (ks == null) {
      ks = new KeySlice();
      slices.get(s).put(p.key(), ks);
    }
    Part part = ks.parts.get(cut);
    if (part == null) {
      part = new Part(new SourcePartials(sourcePartitions), closedThroughMs);
      ks.parts.put(cut, part);
    }
    int heldBefore = part.sources.held();
    Outcome outcome = part.sources.offer(p);
    heldPartials += part.sources.held() - heldBefore;
    if (outcome == Outcome.CHANGED && cut <= closedThroughMs) {
      lateChanged.computeIfAbsent(s, k -> new TreeMap<>()).merge(p.key(), cut, Math::min);
    }
    return outcome;
  }

  @Override
  public int advance(long closeMs, long latenessMs, ResultSink sink) {
    int emitted = revise(sink);
    emitted += close(closeMs, sink);
    drop(latenessMs);
    return emitted;
  }

  /** Revisions of windows closed in earlier advances whose slices changed since. */
  private int revise(ResultSink sink) {
    if (lateChanged.isEmpty()) {
      return 0;
    }
    TreeMap<Long, TreeSet<String>> toRevise = new TreeMap<>();
    for (Map.Entry<Long, TreeMap<String, Long>> e : lateChanged.entrySet()) {
      long s = e.getKey();
      long last = Math.min(shape.lastWindowEndMs(s), closedThroughMs);
      for (Map.Entry<String, Long> k : e.getValue().entrySet()) {
        for (long end = k.getValue(); end <= last; end += hopMs) {
          if (end > droppedThroughMs) {
            toRevise.computeIfAbsent(end, x -> new TreeSet<>()).add(k.getKey());
          }
        }
      }
    }
    lateChanged.clear();
    int emitted = 0;
    for (Map.Entry<Long, TreeSet<String>> e : toRevise.entrySet()) {
      long end = e.getKey();
      HashMap<String, Integer> revised = revisions.computeIfAbsent(end, k -> new HashMap<>());
      for (String key : e.getValue()) {
        Integer previous = revised.get(key);
        int revision = previous != null ? previous + 1 : emittedAtClose(key, end) ? 1 : 0;
        revised.put(key, revision);
        sink.accept(compose(key, end, revision));
        emitted++;
      }
    }
    return emitted;
  }

  /** Whether (key, window ending at end) had data when the window closed. */
  private boolean emittedAtClose(String key, long end) {
    for (HashMap<String, KeySlice> keys : slices.subMap(end - sizeMs, true, end, false).values()) {
      KeySlice ks = keys.get(key);
      if (ks != null) {
        for (Part part : ks.parts.headMap(end, true).values()) {
          if (part.createdClosedThroughMs < end) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /** Closes every window ending at or before {@code closeMs}, skipping windows with no data. */
  private int close(long closeMs, ResultSink sink) {
    if (slices.isEmpty()) {
      closedThroughMs = Math.max(closedThroughMs, floorEnd(closeMs));
      return 0;
    }
    int emitted = 0;
    long end =
        closedThroughMs == Long.MIN_VALUE
            ? shape.firstWindowEndMs(slices.firstKey())
            : closedThroughMs + hopMs;
    while (end <= closeMs) {
      var inWindow = slices.subMap(end - sizeMs, true, end, false);
      if (inWindow.isEmpty()) {
        Long next = slices.ceilingKey(end);
        if (next == null || shape.firstWindowEndMs(next) > closeMs) {
          break;
        }
        end = shape.firstWindowEndMs(next);
        continue;
      }
      TreeSet<String> keys = new TreeSet<>();
      for (HashMap<String, KeySlice> k : inWindow.values()) {
        for (Map.Entry<String, KeySlice> e : k.entrySet()) {
          if (e.getValue().countsIn(end)) {
            keys.add(e.getKey());
          }
        }
      }
      for (String key : keys) {
        sink.accept(compose(key, end, 0));
        emitted++;
      }
      closedThroughMs = end;
      end += hopMs;
    }
    closedThroughMs = Math.max(closedThroughMs, floorEnd(closeMs));
    return emitted;
  }

  private void drop(long latenessMs) {
    long through = floorEnd(Snapshots.saturatingAdd(latenessMs, -allowedLatenessMs));
    if (through <= droppedThroughMs) {
      return;
    }
    droppedThroughMs = through;
    revisions.headMap(through, true).clear();
    Iterator<Map.Entry<Long, HashMap<String, KeySlice>>> it = slices.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<Long, HashMap<String, KeySlice>> e = it.next();
      if (shape.lastWindowEndMs(e.getKey()) > through) {
        break; // later slices are in later windows
      }
      for (KeySlice ks : e.getValue().values()) {
        for (Part part : ks.parts.values()) {
          heldPartials -= part.sources.held();
        }
      }
      lateChanged.remove(e.getKey());
      it.remove();
    }
  }

  /** The largest window end at or before {@code t}. */
  private long floorEnd(long t) {
    if (t == Long.MIN_VALUE) {
      return Long.MIN_VALUE;
    }
    return Math.floorDiv(t - sizeMs, hopMs) * hopMs + sizeMs;
  }

  /**
   * Merges the key's Partials counting in the window ending at {@code end}, in slice, then first
   * window end, then source order.
   */
  private FinalResult compose(String key, long end, int revision) {
    Aggregate merged = Aggregate.empty(sketchSpec);
    Partial earliest = null;
    ResultSources.Builder sources = new ResultSources.Builder();
    for (HashMap<String, KeySlice> keys : slices.subMap(end - sizeMs, true, end, false).values()) {
      KeySlice ks = keys.get(key);
      if (ks == null) {
        continue;
      }
      for (Part part : ks.parts.headMap(end, true).values()) {
        part.sources.mergeInto(merged);
        part.sources.addSourcesTo(sources);
        Partial e = part.sources.earliest();
        if (e != null && (earliest == null || e.firstEventMs() < earliest.firstEventMs())) {
          earliest = e;
        }
      }
    }
    String[] dimensions = earliest == null ? null : earliest.dimensions();
    return new FinalResult(
        key,
        end - sizeMs,
        end,
        merged,
        revision,
        dimensions,
        FinalResult.NOT_SUPERSEDED,
        sources.build());
  }

  /** The merged aggregate of (key, window ending at windowEndMs), or null if nothing is held. */
  Aggregate merged(String key, long windowEndMs) {
    for (HashMap<String, KeySlice> keys :
        slices.subMap(windowEndMs - sizeMs, true, windowEndMs, false).values()) {
      KeySlice ks = keys.get(key);
      if (ks != null && ks.countsIn(windowEndMs)) {
        return compose(key, windowEndMs, 0).aggregate();
      }
    }
    return null;
  }

  @Override
  public long heldPartials() {
    return heldPartials;
  }

  @Override
  public int openWindows() {
    return slices.size();
  }

  @Override
  public void writeTo(DataOutputStream out) throws IOException {
    out.writeLong(closedThroughMs);
    out.writeLong(droppedThroughMs);
    out.writeInt(slices.size());
    for (Map.Entry<Long, HashMap<String, KeySlice>> e : slices.entrySet()) {
      out.writeLong(e.getKey());
      out.writeInt(e.getValue().size());
      for (Map.Entry<String, KeySlice> k : e.getValue().entrySet()) {
        Snapshots.writeString(out, k.getKey());
        out.writeInt(k.getValue().parts.size());
        for (Map.Entry<Long, Part> p : k.getValue().parts.entrySet()) {
          out.writeLong(p.getKey());
          out.writeLong(p.getValue().createdClosedThroughMs);
          p.getValue().sources.writeTo(out);
        }
      }
    }
    out.writeInt(lateChanged.size());
    for (Map.Entry<Long, TreeMap<String, Long>> e : lateChanged.entrySet()) {
      out.writeLong(e.getKey());
      out.writeInt(e.getValue().size());
      for (Map.Entry<String, Long> k : e.getValue().entrySet()) {
        Snapshots.writeString(out, k.getKey());
        out.writeLong(k.getValue());
      }
    }
    out.writeInt(revisions.size());
    for (Map.Entry<Long, HashMap<String, Integer>> e : revisions.entrySet()) {
      out.writeLong(e.getKey());
      out.writeInt(e.getValue().size());
      for (Map.Entry<String, Integer> k : e.getValue().entrySet()) {
        Snapshots.writeString(out, k.getKey());
        out.writeInt(k.getValue());
      }
    }
  }

  /**
   * Reads what {@link #writeTo} wrote; {@code legacy} reads the layout of format-2 snapshots (one
   * part per key and slice, late changes as key sets).
   */
  static HoppingMerge readFrom(
      ByteBuffer in,
      WindowShape.Hopping shape,
      long allowedLatenessMs,
      SketchSpec sketchSpec,
      int sourcePartitions,
      boolean legacy) {
    HoppingMerge m = new HoppingMerge(shape, allowedLatenessMs, sketchSpec);
    m.closedThroughMs = in.getLong();
    m.droppedThroughMs = in.getLong();
    int sliceCount = Snapshots.count(in, 12);
    for (int i = 0; i < sliceCount; i++) {
      long s = in.getLong();
      int keyCount = Snapshots.count(in, 16);
      HashMap<String, KeySlice> keys = new HashMap<>();
      for (int k = 0; k < keyCount; k++) {
        String key = Snapshots.readString(in);
        KeySlice ks = new KeySlice();
        int parts = legacy ? 1 : Snapshots.count(in, 17);
        for (int p = 0; p < parts; p++) {
          long cut = legacy ? shape.firstWindowEndMs(s) : in.getLong();
          long created = in.getLong();
          Part part = new Part(SourcePartials.readFrom(in, sourcePartitions), created);
          m.heldPartials += part.sources.held();
          ks.parts.put(cut, part);
        }
        keys.put(key, ks);
      }
      m.slices.put(s, keys);
    }
    int lateCount = Snapshots.count(in, 12);
    for (int i = 0; i < lateCount; i++) {
      long s = in.getLong();
      int n = Snapshots.count(in, 4);
      TreeMap<String, Long> keys = new TreeMap<>();
      for (int k = 0; k < n; k++) {
        String key = Snapshots.readString(in);
        keys.put(key, legacy ? shape.firstWindowEndMs(s) : in.getLong());
      }
      m.lateChanged.put(s, keys);
    }
    int revisionCount = Snapshots.count(in, 12);
    for (int i = 0; i < revisionCount; i++) {
      long end = in.getLong();
      int n = Snapshots.count(in, 8);
      HashMap<String, Integer> revised = new HashMap<>();
      for (int k = 0; k < n; k++) {
        revised.put(Snapshots.readString(in), in.getInt());
      }
      m.revisions.put(end, revised);
    }
    return m;
  }

  /** A key's Partials of one slice, by the first window they count in. */
  private static final class KeySlice {
    final TreeMap<Long, Part> parts = new TreeMap<>();

    /** Whether any of them counts in the window ending at {@code end}. */
    boolean countsIn(long end) {
      return !parts.headMap(end, true).isEmpty();
    }
  }

  private static final class Part {
    final SourcePartials sources;
    final long createdClosedThroughMs; // closedThroughMs when the first Partial arrived

    Part(SourcePartials sources, long createdClosedThroughMs) {
      this.sources = sources;
      this.createdClosedThroughMs = createdClosedThroughMs;
    }
  }
}

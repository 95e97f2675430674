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
 * Hopping windows composed from slices: per (key, slice) the latest Partial of each source; window
 * {@code [e - size, e)} (e on the grid {@code k*hop + size}) is closed when the global watermark
 * reaches e and emitted once per key with data in it (revision 0), merging its slices in slice then
 * source order. A Partial that changes a slice after one of its windows closed revises every
 * closed, not yet dropped window containing the slice (a key's first data in a closed window is
 * that window's revision 0). A slice is dropped with the last window containing it, at that
 * window's end + allowed lateness.
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
  // slices changed after one of their windows closed: slice start -> keys
  private final TreeMap<Long, TreeSet<String>> lateChanged = new TreeMap<>();

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
    if (shape.lastWindowEndMs(s) <= droppedThroughMs) {
      return Outcome.LATE;
    }
    HashMap<String, KeySlice> keys = slices.computeIfAbsent(s, k -> new HashMap<>());
    KeySlice ks = keys.get(p.key());
    if (ks == null) {
      ks = new KeySlice(new SourcePartials(sourcePartitions), closedThroughMs);
      keys.put(p.key(), ks);
    }
    int heldBefore = ks.sources.held();
    Outcome outcome = ks.sources.offer(p);
    heldPartials += ks.sources.held() - heldBefore;
    if (outcome != Outcome.CHANGED) {
      return outcome;
    }
    if (shape.firstWindowEndMs(s) <= closedThroughMs) {
      lateChanged.computeIfAbsent(s, k -> new TreeSet<>()).add(p.key());
    }
    return Outcome.CHANGED;
  }

  @Override
  public int advance(long globalMs, ResultSink sink) {
    int emitted = revise(sink);
    emitted += close(globalMs, sink);
    drop(globalMs);
    return emitted;
  }

  /** Revisions of windows closed in earlier advances whose slices changed since. */
  private int revise(ResultSink sink) {
    if (lateChanged.isEmpty()) {
      return 0;
    }
    TreeMap<Long, TreeSet<String>> toRevise = new TreeMap<>();
    for (Map.Entry<Long, TreeSet<String>> e : lateChanged.entrySet()) {
      long s = e.getKey();
      long last = Math.min(shape.lastWindowEndMs(s), closedThroughMs);
      for (long end = shape.firstWindowEndMs(s); end <= last; end += hopMs) {
        if (end > droppedThroughMs) {
          toRevise.computeIfAbsent(end, k -> new TreeSet<>()).addAll(e.getValue());
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
      if (ks != null && ks.createdClosedThroughMs < end) {
        return true;
      }
    }
    return false;
  }

  /** Closes every window ending at or before {@code globalMs}, skipping windows with no data. */
  private int close(long globalMs, ResultSink sink) {
    if (slices.isEmpty()) {
      closedThroughMs = Math.max(closedThroughMs, floorEnd(globalMs));
      return 0;
    }
    int emitted = 0;
    long end =
        closedThroughMs == Long.MIN_VALUE
            ? shape.firstWindowEndMs(slices.firstKey())
            : closedThroughMs + hopMs;
    while (end <= globalMs) {
      var inWindow = slices.subMap(end - sizeMs, true, end, false);
      if (inWindow.isEmpty()) {
        Long next = slices.ceilingKey(end);
        if (next == null || shape.firstWindowEndMs(next) > globalMs) {
          break;
        }
        end = shape.firstWindowEndMs(next);
        continue;
      }
      TreeSet<String> keys = new TreeSet<>();
      for (HashMap<String, KeySlice> k : inWindow.values()) {
        keys.addAll(k.keySet());
      }
      for (String key : keys) {
        sink.accept(compose(key, end, 0));
        emitted++;
      }
      closedThroughMs = end;
      end += hopMs;
    }
    closedThroughMs = Math.max(closedThroughMs, floorEnd(globalMs));
    return emitted;
  }

  private void drop(long globalMs) {
    long through = floorEnd(Snapshots.saturatingAdd(globalMs, -allowedLatenessMs));
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
        heldPartials -= ks.sources.held();
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

  /** Merges the key's slices of the window ending at {@code end}, in slice then source order. */
  private FinalResult compose(String key, long end, int revision) {
    Aggregate merged = Aggregate.empty(sketchSpec);
    Partial earliest = null;
    for (HashMap<String, KeySlice> keys : slices.subMap(end - sizeMs, true, end, false).values()) {
      KeySlice ks = keys.get(key);
      if (ks == null) {
        continue;
      }
      ks.sources.mergeInto(merged);
      Partial e = ks.sources.earliest();
      if (e != null && (earliest == null || e.firstEventMs() < earliest.firstEventMs())) {
        earliest = e;
      }
    }
    String[] dimensions = earliest == null ? null : earliest.dimensions();
    return new FinalResult(
        key, end - sizeMs, end, merged, revision, dimensions, FinalResult.NOT_SUPERSEDED);
  }

  /** The merged aggregate of (key, window ending at windowEndMs), or null if nothing is held. */
  Aggregate merged(String key, long windowEndMs) {
    for (HashMap<String, KeySlice> keys :
        slices.subMap(windowEndMs - sizeMs, true, windowEndMs, false).values()) {
      if (keys.containsKey(key)) {
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
        out.writeLong(k.getValue().createdClosedThroughMs);
        k.getValue().sources.writeTo(out);
      }
    }
    out.writeInt(lateChanged.size());
    for (Map.Entry<Long, TreeSet<String>> e : lateChanged.entrySet()) {
      out.writeLong(e.getKey());
      out.writeInt(e.getValue().size());
      for (String key : e.getValue()) {
        Snapshots.writeString(out, key);
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

  static HoppingMerge readFrom(
      ByteBuffer in,
      WindowShape.Hopping shape,
      long allowedLatenessMs,
      SketchSpec sketchSpec,
      int sourcePartitions) {
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
        long created = in.getLong();
        KeySlice ks = new KeySlice(SourcePartials.readFrom(in, sourcePartitions), created);
        m.heldPartials += ks.sources.held();
        keys.put(key, ks);
      }
      m.slices.put(s, keys);
    }
    int lateCount = Snapshots.count(in, 12);
    for (int i = 0; i < lateCount; i++) {
      long s = in.getLong();
      int n = Snapshots.count(in, 4);
      TreeSet<String> keys = new TreeSet<>();
      for (int k = 0; k < n; k++) {
        keys.add(Snapshots.readString(in));
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

  private static final class KeySlice {
    final SourcePartials sources;
    final long createdClosedThroughMs; // closedThroughMs when the first Partial arrived

    KeySlice(SourcePartials sources, long createdClosedThroughMs) {
      this.sources = sources;
      this.createdClosedThroughMs = createdClosedThroughMs;
    }
  }
}

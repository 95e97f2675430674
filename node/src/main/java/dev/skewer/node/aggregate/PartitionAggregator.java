package dev.skewer.node.aggregate;

import dev.skewer.core.checkpoint.CapturedState;
import dev.skewer.core.checkpoint.CheckpointFormatException;
import dev.skewer.core.checkpoint.StateOutput;
import dev.skewer.core.window.SessionSliceAssigner;
import dev.skewer.core.window.SliceAssigner;
import dev.skewer.core.window.WindowShape;
import dev.skewer.core.wire.Partial;
import dev.skewer.core.wire.Watermark;
import dev.skewer.sketches.Aggregate;
import dev.skewer.sketches.AggregateCodec;
import dev.skewer.sketches.CodecException;
import dev.skewer.sketches.SketchSpec;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Pre-aggregates the events of one source partition per (key, slice) and decides emission and
 * lateness. A slice is what the {@link SliceAssigner} says: the window for tumbling windows,
 * gcd(size, hop) for hopping windows, a quarter of the gap for sessions; every event updates
 * exactly one slice, whatever the windows' overlap. Per (key, slice) it keeps the aggregate, the
 * first and last event time and the earliest event's dimension values; each Partial carries them
 * with the window shape, so the coordinator composes windows and sessions without configuration.
 *
 * <p><b>Watermarks.</b> The partition's own watermark is {@code max event time - delay}; the
 * <em>frontier</em> is the coordinators' global watermark this partition has adopted ({@link
 * #adoptFrontier}: what an idle partition's events are judged against when it wakes up). Lateness
 * is judged against the <em>effective watermark</em>, the larger of the two; neither ever goes
 * back. {@link #finalizeOpenSlices} (end of input after idleness) moves only the <em>close</em>
 * point, at which results may be emitted, never the effective watermark: events that arrive after a
 * pause revise results instead of being late.
 *
 * <p><b>Lateness, per result (as in Flink).</b> With allowed lateness L and effective watermark W:
 *
 * <ul>
 *   <li>tumbling: an event is late when its window's end + L &le; W;
 *   <li>hopping: an event updates every window it belongs to whose end + L &gt; W, and is late only
 *       when that is none of them. Events that arrive after some windows of their slice are past
 *       lateness count only in the later ones: they are kept apart per (key, slice, first window
 *       end) and travel as their own Partial ({@link Partial#firstWindowEndMs()});
 *   <li>sessions: a session (this partition's events of a key, each less than the gap from the
 *       previous) accepts events until closeBoundary(last event) + slice + L &le; W, where
 *       closeBoundary is the first slice boundary at or after last + gap. An event is late when the
 *       session it would form alone accepts no events and it is less than the gap from no session
 *       of its key that does. State is kept per cluster of sessions (less than two gaps apart)
 *       until no accepted event can reach the cluster any more, so a session is never cut short and
 *       a forgotten slice is never created again.
 * </ul>
 *
 * An event is therefore in every result it belongs to that is not past lateness, or in the late
 * topic. {@link #update} returns {@link Outcome#LATE} without touching the state.
 *
 * <p><b>Emission.</b> {@link #emit} emits a Partial for every changed (key, slice, first window
 * end) whose slice end &le; the effective watermark or the close point, then drops what is past
 * lateness (after emitting it). The version of a Partial is the number of events folded in, so a
 * replay from a checkpoint reproduces the same versions and a later emission always has a higher
 * one. {@link #flushOpenSlices} emits every changed open slice (before the partition is treated as
 * idle, so the coordinator has its data for windows the other partitions close).
 *
 * <p>{@link #snapshot} and {@link #restore} capture and rebuild the whole state; restoring and
 * replaying the same events yields the same Partials as the original run.
 *
 * <p>Not thread-safe: one owner (the node's event loop).
 */
public final class PartitionAggregator {

  /** What became of one event. */
  public enum Outcome {
    ACCEPTED,
    LATE
  }

  // configuration
  private final int partition;
  private final SliceAssigner slices;
  private final long delayMs;
  private final long allowedLatenessMs;
  private final SketchSpec sketchSpec;
  private final WindowShape shape;
  private final WindowShape.Hopping hopping; // null unless hopping
  private final long sessionGapMs; // 0 unless sessions
  private final long sessionSliceMs;

  // state
  private long epoch;
  private long maxEventTimeMs = Long.MIN_VALUE;
  private long watermarkMs = Long.MIN_VALUE;
  private long frontierMs = Long.MIN_VALUE;
  private long closeThroughMs = Long.MIN_VALUE;
  private final TreeMap<Long, SliceState> open = new TreeMap<>();
  // sessions only: each key's slices by start, the same objects as in open
  private final HashMap<String, TreeMap<Long, KeySlice>> sessionsByKey = new HashMap<>();
  private SliceState lastSlice; // one-entry cache: consecutive events mostly share a slice
  private long openKeySlices;

  public PartitionAggregator(
      int partition,
      long epoch,
      SliceAssigner slices,
      long delayMs,
      long allowedLatenessMs,
      SketchSpec sketchSpec) {
    if (delayMs < 0) {
      throw new IllegalArgumentException("delayMs must be >= 0, was " + delayMs);
    }
    if (allowedLatenessMs < 0) {
      throw new IllegalArgumentException(
          "allowedLatenessMs must be >= 0, was " + allowedLatenessMs);
    }
    this.partition = partition;
    this.epoch = epoch;
    this.slices = slices;
    this.delayMs = delayMs;
    this.allowedLatenessMs = allowedLatenessMs;
    this.sketchSpec = sketchSpec;
    this.shape = slices.shape();
    this.hopping = shape instanceof WindowShape.Hopping h ? h : null;
    if (shape instanceof WindowShape.Session s) {
      this.sessionGapMs = s.gapMs();
      this.sessionSliceMs = SessionSliceAssigner.sliceMs(s.gapMs());
    } else {
      this.sessionGapMs = 0;
      this.sessionSliceMs = 0;
    }
  }

  /**
   * Folds in one event without dimensions; see the class contract for lateness.
   *
   * @param key the key, as the event has it
   */
  public Outcome update(
      String key,
      long eventTimeMs,
      double[] numeric,
      String distinctItem,
      String frequentItem,
      double quantileValue) {
    return update(key, eventTimeMs, numeric, distinctItem, frequentItem, quantileValue, null);
  }

  /**
   * Folds in one event; see the class contract for lateness.
   *
   * @param key the key, as the event has it
   * @param dimensions the event's dimension values ({@code input.dimensions} order, null where
   *     absent), or null; read, not kept (the earliest event's values are copied)
   */
  public Outcome update(
      String key,
      long eventTimeMs,
      double[] numeric,
      String distinctItem,
      String frequentItem,
      double quantileValue,
      String[] dimensions) {
    long sliceStartMs = slices.sliceStartMs(eventTimeMs);
    long effective = effectiveWatermarkMs();
    long cutMs;
    if (hopping != null) {
      cutMs = hoppingCut(sliceStartMs, effective);
      if (cutMs == Long.MAX_VALUE) {
        return Outcome.LATE;
      }
    } else if (sessionGapMs > 0) {
      if (isLateSessionEvent(key, eventTimeMs, effective)) {
        return Outcome.LATE;
      }
      cutMs = sliceStartMs + sessionSliceMs;
    } else {
      cutMs = slices.sliceEndMs(sliceStartMs);
      if (pastLateness(cutMs, effective)) {
        return Outcome.LATE;
      }
    }
    SliceState slice = lastSlice;
    if (slice == null || slice.startMs != sliceStartMs) {
      slice = open.get(sliceStartMs);
      if (slice == null) {
        slice = new SliceState(sliceStartMs, slices.sliceEndMs(sliceStartMs));
        open.put(sliceStartMs, slice);
      }
      lastSlice = slice;
    }
    KeySlice ks = slice.keys.get(key);
    if (ks == null) {
      ks = new KeySlice(sliceStartMs, firstCut(sliceStartMs, slice), Aggregate.empty(sketchSpec));
      slice.keys.put(key, ks);
      openKeySlices++;
      if (sessionGapMs > 0) {
        sessionsByKey.computeIfAbsent(key, k -> new TreeMap<>()).put(sliceStartMs, ks);
      }
    }
    Part part = ks.part(cutMs, sketchSpec);
    part.aggregate.update(numeric, distinctItem, frequentItem, quantileValue);
    if (eventTimeMs < part.firstEventMs) {
      part.firstEventMs = eventTimeMs;
      if (dimensions != null && dimensions.length > 0) {
        part.dimensions = dimensions.clone();
      }
    }
    if (eventTimeMs > part.lastEventMs) {
      part.lastEventMs = eventTimeMs;
    }
    if (!part.dirty) {
      part.dirty = true;
      slice.dirtyParts++;
    }
    if (eventTimeMs > maxEventTimeMs) {
      maxEventTimeMs = eventTimeMs;
      long candidate = saturatingSubtract(eventTimeMs, delayMs);
      if (candidate > watermarkMs) {
        watermarkMs = candidate;
      }
    }
    return Outcome.ACCEPTED;
  }

  /**
   * Hopping windows: the end of the first window an event at {@code eventTimeMs} would update now
   * (the later windows of its slice follow), or {@link Long#MAX_VALUE} when it would be late.
   */
  public long hoppingFirstWindowEndMs(long eventTimeMs) {
    if (hopping == null) {
      throw new IllegalStateException("not a hopping window");
    }
    return hoppingCut(slices.sliceStartMs(eventTimeMs), effectiveWatermarkMs());
  }

  private boolean pastLateness(long resultEndMs, long effectiveMs) {
    return effectiveMs != Long.MIN_VALUE
        && saturatingAdd(resultEndMs, allowedLatenessMs) <= effectiveMs;
  }

  /** The first window end of a slice's main part. */
  private long firstCut(long sliceStartMs, SliceState slice) {
    return hopping != null ? hopping.firstWindowEndMs(sliceStartMs) : slice.endMs;
  }

  /**
   * Hopping: the end of the first window of the slice that is not past lateness, or {@link
   * Long#MAX_VALUE} when every window of the slice is.
   */
  private long hoppingCut(long sliceStartMs, long effectiveMs) {
    long first = hopping.firstWindowEndMs(sliceStartMs);
    if (!pastLateness(first, effectiveMs)) {
      return first;
    }
    long last = hopping.lastWindowEndMs(sliceStartMs);
    if (pastLateness(last, effectiveMs)) {
      return Long.MAX_VALUE;
    }
    long hop = hopping.hopMs();
    long lateThrough = effectiveMs - allowedLatenessMs; // windows ending at or before are late
    long k = Math.floorDiv(lateThrough - first, hop) + 1;
    return first + k * hop;
  }

  // ---- sessions

  private long closeBoundary(long lastEventMs) {
    return SessionSliceAssigner.closeBoundaryMs(lastEventMs, sessionGapMs, sessionSliceMs);
  }

  /** A session whose last event is at {@code lastEventMs} accepts no more events. */
  private boolean sessionExpired(long lastEventMs, long effectiveMs) {
    return pastLateness(saturatingAdd(closeBoundary(lastEventMs), sessionSliceMs), effectiveMs);
  }

  /**
   * A cluster of this partition's sessions (sessions less than two gaps apart) whose last event is
   * at {@code lastEventMs} can be forgotten: no event accepted from now on can be less than the gap
   * from any of them (one accepted on its own is more than two gaps later; one accepted because it
   * joins a session that still accepts events is less than the gap from a later cluster).
   */
  private boolean clusterForgettable(long lastEventMs, long effectiveMs) {
    return pastLateness(
        saturatingAdd(closeBoundary(lastEventMs), 2 * sessionSliceMs + 2 * sessionGapMs),
        effectiveMs);
  }

  private boolean isLateSessionEvent(String key, long eventTimeMs, long effectiveMs) {
    if (!sessionExpired(eventTimeMs, effectiveMs)) {
      return false; // not late even as a session of its own
    }
    TreeMap<Long, KeySlice> held = sessionsByKey.get(key);
    if (held == null) {
      return true;
    }
    // the key's held slices whose extent is less than the gap from the event: it joins their
    // sessions, and is late only when every one of them accepts no more events
    long from = slices.sliceStartMs(saturatingSubtract(eventTimeMs, sessionGapMs));
    for (KeySlice ks :
        held.subMap(from, true, saturatingAdd(eventTimeMs, sessionGapMs), true).values()) {
      if (ks.latestEventMs() > eventTimeMs - sessionGapMs
          && ks.earliestEventMs() < eventTimeMs + sessionGapMs
          && !sessionExpired(chainLastEventMs(held, ks), effectiveMs)) {
        return false;
      }
    }
    return true;
  }

  /** The last event of the chain (session on this partition) that contains {@code start}. */
  private long chainLastEventMs(TreeMap<Long, KeySlice> held, KeySlice start) {
    long last = start.latestEventMs();
    for (KeySlice next : held.tailMap(start.sliceStartMs, false).values()) {
      if (next.earliestEventMs() - last >= sessionGapMs) {
        break;
      }
      last = Math.max(last, next.latestEventMs());
    }
    return last;
  }

  // ---- emission

  /**
   * Emits the Partials of every closed slice that changed since its last emission, in slice order,
   * then drops what is past lateness.
   *
   * @return the number of Partials emitted
   */
  public int emit(PartialSink sink) {
    long effective = effectiveWatermarkMs();
    long closeMs = Math.max(effective, closeThroughMs);
    if (closeMs == Long.MIN_VALUE) {
      return 0;
    }
    int emitted = 0;
    for (SliceState slice : open.headMap(closeMs, true).values()) {
      if (slice.endMs > closeMs) {
        break; // slices are ordered by start and all have the same length: later ones too
      }
      emitted += emitChanged(slice, sink);
    }
    // dropped only once everything closed is sent
    if (sessionGapMs > 0) {
      forgetSessions(effective);
    } else {
      Iterator<Map.Entry<Long, SliceState>> it = open.entrySet().iterator();
      while (it.hasNext()) {
        SliceState slice = it.next().getValue();
        long last = hopping != null ? hopping.lastWindowEndMs(slice.startMs) : slice.endMs;
        if (!pastLateness(last, effective)) {
          break; // later slices end later
        }
        openKeySlices -= slice.keys.size();
        it.remove();
        if (lastSlice == slice) {
          lastSlice = null;
        }
      }
    }
    return emitted;
  }

  /**
   * Emits every changed (key, slice) of the open slices, closed or not: what a partition sends
   * before it is treated as idle, so the others do not close windows without its data.
   *
   * @return the number of Partials emitted
   */
  public int flushOpenSlices(PartialSink sink) {
    int emitted = 0;
    for (SliceState slice : open.values()) {
      emitted += emitChanged(slice, sink);
    }
    return emitted;
  }

  private int emitChanged(SliceState slice, PartialSink sink) {
    if (slice.dirtyParts == 0) {
      return 0;
    }
    int emitted = 0;
    for (Map.Entry<String, KeySlice> e : slice.keys.entrySet()) {
      KeySlice ks = e.getValue();
      emitted += emitIfDirty(e.getKey(), slice, ks, sink);
      if (ks.tails != null) {
        for (Part tail : ks.tails.values()) {
          emitted += emitIfDirty(e.getKey(), slice, tail, sink);
        }
      }
    }
    slice.dirtyParts = 0;
    return emitted;
  }

  private int emitIfDirty(String key, SliceState slice, Part part, PartialSink sink) {
    if (!part.dirty) {
      return 0;
    }
    part.dirty = false;
    // the version is the number of events folded in: it grows with every change and a replay
    // from a checkpoint yields the same (version, content) pairs
    part.version = part.aggregate.count();
    sink.accept(
        new Partial(
            partition,
            epoch,
            part.version,
            key,
            slice.startMs,
            slice.endMs,
            AggregateCodec.encode(part.aggregate),
            shape,
            part.firstEventMs,
            part.lastEventMs,
            part.dimensions,
            part.cutMs,
            -1));
    return 1;
  }

  /** Forgets the clusters of sessions no accepted event can reach any more (see above). */
  private void forgetSessions(long effective) {
    // cheap bound: only slices whose own last possible event is forgettable can be
    TreeMap<String, Boolean> candidates = new TreeMap<>();
    for (SliceState slice : open.values()) {
      if (!clusterForgettable(slice.endMs - 1, effective)) {
        break;
      }
      for (String key : slice.keys.keySet()) {
        candidates.put(key, Boolean.TRUE);
      }
    }
    for (String key : candidates.keySet()) {
      TreeMap<Long, KeySlice> held = sessionsByKey.get(key);
      List<List<Long>> clusters = new ArrayList<>();
      List<Long> lasts = new ArrayList<>();
      long clusterLast = Long.MIN_VALUE;
      for (Map.Entry<Long, KeySlice> e : held.entrySet()) {
        KeySlice ks = e.getValue();
        if (clusters.isEmpty() || ks.earliestEventMs() - clusterLast >= 2 * sessionGapMs) {
          if (!clusters.isEmpty()) {
            lasts.add(clusterLast);
          }
          clusters.add(new ArrayList<>());
          clusterLast = Long.MIN_VALUE;
        }
        clusters.get(clusters.size() - 1).add(e.getKey());
        clusterLast = Math.max(clusterLast, ks.latestEventMs());
      }
      lasts.add(clusterLast);
      for (int c = 0; c < clusters.size(); c++) {
        if (clusterForgettable(lasts.get(c), effective)) {
          forget(key, held, clusters.get(c));
        }
      }
      if (held.isEmpty()) {
        sessionsByKey.remove(key);
      }
    }
  }

  private void forget(String key, TreeMap<Long, KeySlice> held, List<Long> cluster) {
    for (long start : cluster) {
      held.remove(start);
      SliceState slice = open.get(start);
      slice.keys.remove(key);
      openKeySlices--;
      if (slice.keys.isEmpty()) {
        open.remove(start);
        if (lastSlice == slice) {
          lastSlice = null;
        }
      }
    }
  }

  // ---- watermarks

  /**
   * End of input: moves the close point to where the coordinator can close every result of the
   * latest open slice ({@link SliceAssigner#finalWatermarkMs}), so the next {@link #emit} emits
   * every open slice. The effective watermark does not move: events that come later revise.
   */
  public void finalizeOpenSlices() {
    if (!open.isEmpty()) {
      long lastEnd = slices.finalWatermarkMs(open.lastKey());
      if (lastEnd > closeThroughMs) {
        closeThroughMs = lastEnd;
      }
    }
  }

  /**
   * Adopts the coordinators' global watermark: later events are judged against it when it is ahead
   * of this partition's own watermark (an idle partition waking up). Never goes back.
   */
  public void adoptFrontier(long globalWatermarkMs) {
    if (globalWatermarkMs > frontierMs) {
      frontierMs = globalWatermarkMs;
    }
  }

  /**
   * The state as {@link #capture()} would capture it after {@code
   * adoptFrontier(globalWatermarkMs)}, without adopting it.
   */
  public CapturedState captureAdopting(long globalWatermarkMs) {
    return capture(Math.max(frontierMs, globalWatermarkMs));
  }

  /** The current watermark as a wire message (not yet numbered). */
  public Watermark watermark(boolean idle) {
    return watermark(idle, false);
  }

  /**
   * The current watermark as a wire message (not yet numbered); {@code finalized}: the idle
   * partition has also reached end of input.
   */
  public Watermark watermark(boolean idle, boolean finalized) {
    long effective = effectiveWatermarkMs();
    return new Watermark(
        partition, epoch, effective, idle, Math.max(effective, closeThroughMs), -1, finalized);
  }

  /** The watermark lateness is judged against: own watermark or adopted frontier. */
  public long effectiveWatermarkMs() {
    return Math.max(watermarkMs, frontierMs);
  }

  public int partition() {
    return partition;
  }

  public long epoch() {
    return epoch;
  }

  /** This partition's own watermark: max event time - delay. */
  public long watermarkMs() {
    return watermarkMs;
  }

  public long frontierMs() {
    return frontierMs;
  }

  public long closeThroughMs() {
    return closeThroughMs;
  }

  public long maxEventTimeMs() {
    return maxEventTimeMs;
  }

  /** Number of open slices held. */
  public int openSlices() {
    return open.size();
  }

  /** Number of (key, slice) aggregates held. */
  public long openKeySlices() {
    return openKeySlices;
  }

  // ---- snapshots

  private static final byte SNAPSHOT_VERSION = 3;
  private static final byte SNAPSHOT_VERSION_2 = 2;
  private static final byte SNAPSHOT_VERSION_1 = 1;

  /**
   * The whole state, encoded (format 3): {@code version:u8 partition:i32 maxEventTimeMs:i64
   * watermarkMs:i64 frontierMs:i64 closeThroughMs:i64 slices:i32 {startMs:i64 endMs:i64 keys:i32
   * {keyLength:i32 key:utf8 parts:u8 {cutMs:i64 dirty:u8 version:i64 firstEventMs:i64
   * lastEventMs:i64 dimensions:u8 {length:i32 (-1 = absent) value:utf8}* aggregateLength:i32
   * aggregate}*}*}*}. Formats 1 and 2 (one part per key and slice, no frontier, no close point) are
   * still restored.
   */
  public byte[] snapshot() {
    return capture().encode();
  }

  /**
   * The state for {@link #snapshot()}, captured now and encoded by the result — on another thread
   * if need be, as long as nothing is folded in, emitted or closed until it has encoded: the
   * watermarks are copied, the open slices are read when it encodes.
   */
  public CapturedState capture() {
    return capture(frontierMs);
  }

  private CapturedState capture(long frontier) {
    int partition = this.partition;
    long maxEventTime = maxEventTimeMs;
    long watermark = watermarkMs;
    long closeThrough = closeThroughMs;
    Collection<SliceState> slices = open.values();
    return () -> {
      StateOutput bytes = new StateOutput();
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        out.writeByte(SNAPSHOT_VERSION);
        out.writeInt(partition);
        out.writeLong(maxEventTime);
        out.writeLong(watermark);
        out.writeLong(frontier);
        out.writeLong(closeThrough);
        out.writeInt(slices.size());
        for (SliceState s : slices) {
          writeSlice(out, s);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e); // in-memory stream: cannot happen
      }
      return bytes.toByteArray();
    };
  }

  private static void writeSlice(DataOutputStream out, SliceState s) throws IOException {
    out.writeLong(s.startMs);
    out.writeLong(s.endMs);
    out.writeInt(s.keys.size());
    for (Map.Entry<String, KeySlice> e : s.keys.entrySet()) {
      byte[] key = e.getKey().getBytes(StandardCharsets.UTF_8);
      out.writeInt(key.length);
      out.write(key);
      KeySlice ks = e.getValue();
      out.writeByte(1 + (ks.tails == null ? 0 : ks.tails.size()));
      writePart(out, ks);
      if (ks.tails != null) {
        for (Part tail : ks.tails.values()) {
          writePart(out, tail);
        }
      }
    }
  }

  private static void writePart(DataOutputStream out, Part part) throws IOException {
    out.writeLong(part.cutMs);
    out.writeByte(part.dirty ? 1 : 0);
    out.writeLong(part.version);
    out.writeLong(part.firstEventMs);
    out.writeLong(part.lastEventMs);
    out.writeByte(part.dimensions.length);
    for (String d : part.dimensions) {
      if (d == null) {
        out.writeInt(-1);
      } else {
        byte[] v = d.getBytes(StandardCharsets.UTF_8);
        out.writeInt(v.length);
        out.write(v);
      }
    }
    byte[] agg = AggregateCodec.encode(part.aggregate);
    out.writeInt(agg.length);
    out.write(agg);
  }

  /**
   * Rebuilds an aggregator from {@link #snapshot} bytes, owned now under {@code epoch}.
   *
   * @throws CheckpointFormatException if the bytes are not a valid snapshot
   */
  public static PartitionAggregator restore(
      byte[] snapshot,
      long epoch,
      SliceAssigner slices,
      long delayMs,
      long allowedLatenessMs,
      SketchSpec sketchSpec) {
    try {
      ByteBuffer in = ByteBuffer.wrap(snapshot);
      byte version = in.get();
      if (version != SNAPSHOT_VERSION
          && version != SNAPSHOT_VERSION_2
          && version != SNAPSHOT_VERSION_1) {
        throw new CheckpointFormatException("unknown node snapshot version " + version);
      }
      PartitionAggregator a =
          new PartitionAggregator(
              in.getInt(), epoch, slices, delayMs, allowedLatenessMs, sketchSpec);
      a.maxEventTimeMs = in.getLong();
      a.watermarkMs = in.getLong();
      if (version == SNAPSHOT_VERSION) {
        a.frontierMs = in.getLong();
        a.closeThroughMs = in.getLong();
      }
      int sliceCount = count(in, 20);
      for (int i = 0; i < sliceCount; i++) {
        long startMs = in.getLong();
        long endMs = in.getLong();
        if (endMs != slices.sliceEndMs(startMs)) {
          throw new CheckpointFormatException(
              "snapshot slice ["
                  + startMs
                  + ", "
                  + endMs
                  + ") does not match the job's slices "
                  + slices);
        }
        SliceState s = new SliceState(startMs, endMs);
        int keys = count(in, 17);
        for (int k = 0; k < keys; k++) {
          byte[] keyBytes = new byte[count(in, 1)];
          in.get(keyBytes);
          String key = new String(keyBytes, StandardCharsets.UTF_8);
          int parts = version == SNAPSHOT_VERSION ? in.get() & 0xff : 1;
          if (parts < 1) {
            throw new CheckpointFormatException("a key-slice without parts in node snapshot");
          }
          KeySlice ks = null;
          for (int p = 0; p < parts; p++) {
            Part part = readPart(in, version, a, s, snapshot, sketchSpec);
            if (ks == null) {
              ks = KeySlice.withMain(startMs, part);
            } else {
              if (ks.tails == null) {
                ks.tails = new TreeMap<>();
              }
              ks.tails.put(part.cutMs, part);
            }
            if (part.dirty) {
              s.dirtyParts++;
            }
          }
          s.keys.put(key, ks);
          a.openKeySlices++;
          if (a.sessionGapMs > 0) {
            a.sessionsByKey.computeIfAbsent(key, x -> new TreeMap<>()).put(startMs, ks);
          }
        }
        a.open.put(s.startMs, s);
      }
      if (in.hasRemaining()) {
        throw new CheckpointFormatException(in.remaining() + " trailing bytes in node snapshot");
      }
      return a;
    } catch (BufferUnderflowException | CodecException e) {
      throw new CheckpointFormatException("corrupt node snapshot: " + e, e);
    }
  }

  private static Part readPart(
      ByteBuffer in,
      byte version,
      PartitionAggregator a,
      SliceState s,
      byte[] snapshot,
      SketchSpec sketchSpec) {
    long cutMs = version == SNAPSHOT_VERSION ? in.getLong() : a.firstCut(s.startMs, s);
    boolean dirty = in.get() != 0;
    long partVersion = in.getLong();
    long firstEventMs = s.startMs;
    long lastEventMs = s.endMs - 1;
    String[] dims = Partial.NO_DIMENSIONS;
    if (version != SNAPSHOT_VERSION_1) {
      firstEventMs = in.getLong();
      lastEventMs = in.getLong();
      int dimCount = in.get() & 0xff;
      if (dimCount > 0) {
        dims = new String[dimCount];
        for (int d = 0; d < dimCount; d++) {
          int length = in.getInt();
          if (length == -1) {
            continue;
          }
          if (length < 0 || length > in.remaining()) {
            throw new CheckpointFormatException(
                "dimension length "
                    + length
                    + " does not fit the "
                    + in.remaining()
                    + " bytes left");
          }
          byte[] v = new byte[length];
          in.get(v);
          dims[d] = new String(v, StandardCharsets.UTF_8);
        }
      }
    }
    int aggLength = count(in, 1);
    Aggregate agg = AggregateCodec.decode(snapshot, in.position(), aggLength);
    in.position(in.position() + aggLength);
    if (!agg.spec().equals(sketchSpec)) {
      throw new CheckpointFormatException(
          "snapshot aggregates use another sketch spec than the job: " + agg.spec());
    }
    Part part = new Part(cutMs, agg);
    part.dirty = dirty;
    part.version = partVersion;
    part.firstEventMs = firstEventMs;
    part.lastEventMs = lastEventMs;
    part.dimensions = dims;
    return part;
  }

  /** Reads a count and checks it against the bytes left (each item needs at least minBytes). */
  private static int count(ByteBuffer in, int minBytes) {
    int n = in.getInt();
    if (n < 0 || (long) n * minBytes > in.remaining()) {
      throw new CheckpointFormatException(
          "declared count " + n + " does not fit the " + in.remaining() + " bytes left");
    }
    return n;
  }

  private static long saturatingAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? (a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : r;
  }

  private static long saturatingSubtract(long a, long b) {
    long r = a - b;
    return ((a ^ b) & (a ^ r)) < 0 ? (a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : r;
  }

  private static final class SliceState {
    final long startMs;
    final long endMs;
    final HashMap<String, KeySlice> keys = new HashMap<>();
    int dirtyParts;

    SliceState(long startMs, long endMs) {
      this.startMs = startMs;
      this.endMs = endMs;
    }
  }

  /**
   * One key's state in one slice: it is itself the main part (the events that count from the
   * slice's first window on: one object per key-slice, the common case) and holds, for hopping
   * windows, the later-cut parts.
   */
  private static final class KeySlice extends Part {
    final long sliceStartMs;
    TreeMap<Long, Part> tails; // by first window end; null until needed

    KeySlice(long sliceStartMs, long cutMs, Aggregate aggregate) {
      super(cutMs, aggregate);
      this.sliceStartMs = sliceStartMs;
    }

    /** A key-slice whose main part is {@code main} (read from a snapshot). */
    static KeySlice withMain(long sliceStartMs, Part main) {
      KeySlice ks = new KeySlice(sliceStartMs, main.cutMs, main.aggregate);
      ks.version = main.version;
      ks.dirty = main.dirty;
      ks.firstEventMs = main.firstEventMs;
      ks.lastEventMs = main.lastEventMs;
      ks.dimensions = main.dimensions;
      return ks;
    }

    Part part(long cutMs, SketchSpec spec) {
      if (cutMs == this.cutMs) {
        return this;
      }
      if (tails == null) {
        tails = new TreeMap<>();
      }
      return tails.computeIfAbsent(cutMs, c -> new Part(c, spec));
    }

    /** The first event time over every part. */
    long earliestEventMs() {
      long first = firstEventMs;
      if (tails != null) {
        for (Part p : tails.values()) {
          first = Math.min(first, p.firstEventMs);
        }
      }
      return first;
    }

    /** The last event time over every part. */
    long latestEventMs() {
      long last = lastEventMs;
      if (tails != null) {
        for (Part p : tails.values()) {
          last = Math.max(last, p.lastEventMs);
        }
      }
      return last;
    }
  }

  /** The events of a (key, slice) that count from one window end on. */
  private static class Part {
    final long cutMs;
    final Aggregate aggregate;
    long version;
    boolean dirty;
    long firstEventMs = Long.MAX_VALUE;
    long lastEventMs = Long.MIN_VALUE;
    String[] dimensions = Partial.NO_DIMENSIONS;

    Part(long cutMs, SketchSpec spec) {
      this(cutMs, Aggregate.empty(spec));
    }

    Part(long cutMs, Aggregate aggregate) {
      this.cutMs = cutMs;
      this.aggregate = aggregate;
    }
  }
}

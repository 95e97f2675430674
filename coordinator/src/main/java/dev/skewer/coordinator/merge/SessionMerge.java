package dev.skewer.coordinator.merge;

import dev.skewer.core.window.SessionSliceAssigner;
import dev.skewer.core.window.WindowShape;
import dev.skewer.core.wire.Partial;
import dev.skewer.sketches.Aggregate;
import dev.skewer.sketches.SketchSpec;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * Sessions merged from slice Partials. Per key it holds, per slice, the latest Partial of each
 * source, each with the first and last event time the source saw in that slice. A slice is shorter
 * than the gap, so all events of one slice (from every source) belong to one session; sessions are
 * the maximal runs of slices whose extents are less than {@code gap} apart: exact, because a
 * session is a chain of events each less than gap after the previous, every event is in some slice
 * extent, and extents less than gap apart contain events less than gap apart.
 *
 * <p>Emission (EMIT FINAL): a session whose last event is at {@code e} is final when the close
 * watermark reaches the first slice boundary at or after {@code e + gap}; it is emitted once,
 * revision 0, under result key {@code key@start}. Until the lateness watermark reaches that
 * boundary + one slice + allowed lateness, a late Partial that changes it yields the next revision;
 * one that extends it to an earlier start, or bridges it with another emitted session, emits the
 * merged session under the earliest start (revision = 1 + the highest revision it absorbs) and then
 * each absorbed result key once more, superseded (empty aggregate, {@link
 * FinalResult#supersededByStartMs}). Sessions are dropped by cluster (sessions less than two gaps
 * apart), once the lateness watermark is past what any node may still accept near them (see {@link
 * #dropBoundary}); nodes announce a lateness watermark only after the Partials it covers, so no
 * accepted event can still meet a dropped session.
 *
 * <p>Not thread-safe.
 */
final class SessionMerge implements SliceMerge {

  private static final long NOT_DUE = Long.MAX_VALUE;

  // configuration
  private final long gapMs;
  private final long sliceMs;
  private final long allowedLatenessMs;
  private final SketchSpec sketchSpec;

  // checkpointed state
  private final HashMap<String, KeySessions> keys = new HashMap<>();
  private long lastLatenessMs = Long.MIN_VALUE; // the highest lateness watermark seen

  // derived (rebuilt on restore)
  private final TreeMap<Long, LinkedHashSet<String>> due = new TreeMap<>(); // by close time
  private final TreeMap<Long, LinkedHashSet<String>> dropDue = new TreeMap<>(); // by drop time
  private final LinkedHashSet<String> dirty = new LinkedHashSet<>();
  private long heldPartials;

  SessionMerge(WindowShape.Session shape, long allowedLatenessMs, SketchSpec sketchSpec) {
    this.gapMs = shape.gapMs();
    this.sliceMs = SessionSliceAssigner.sliceMs(gapMs);
    this.allowedLatenessMs = allowedLatenessMs;
    this.sketchSpec = sketchSpec;
  }

  private long closeBoundary(long lastEventMs) {
    return SessionSliceAssigner.closeBoundaryMs(lastEventMs, gapMs, sliceMs);
  }

  @Override
  public Outcome accept(Partial p, int sourcePartitions) {
    long s = p.sliceStartMs();
    if (p.sliceEndMs() - s != sliceMs || Math.floorMod(s, sliceMs) != 0) {
      return Outcome.MISMATCHED;
    }
    if (lastLatenessMs != Long.MIN_VALUE
        && dropBoundary(p.lastEventMs()) <= lastLatenessMs
        && !joinsHeldSession(p)) {
      return Outcome.LATE;
    }
    KeySessions ks = keys.computeIfAbsent(p.key(), k -> new KeySessions());
    SessionSlice slice = ks.slices.get(s);
    if (slice == null) {
      slice = new SessionSlice(new SourcePartials(sourcePartitions));
      ks.slices.put(s, slice);
    }
    int heldBefore = slice.sources.held();
    Outcome outcome = slice.sources.offer(p);
    heldPartials += slice.sources.held() - heldBefore;
    if (outcome != Outcome.CHANGED) {
      return outcome;
    }
    slice.changed = true;
    dirty.add(p.key());
    return Outcome.CHANGED;
  }

  /**
   * Whether a Partial's extent is less than the gap from a slice still held for its key: it then
   * belongs to a session not yet dropped, however old its own events are.
   */
  private boolean joinsHeldSession(Partial p) {
    KeySessions ks = keys.get(p.key());
    if (ks == null) {
      return false;
    }
    long from = Snapshots.saturatingAdd(p.firstEventMs(), -gapMs - sliceMs);
    long to = Snapshots.saturatingAdd(p.lastEventMs(), gapMs);
    for (SessionSlice slice : ks.slices.subMap(from, true, to, true).values()) {
      if (slice.sources.lastEventMs() > p.firstEventMs() - gapMs
          && slice.sources.firstEventMs() < p.lastEventMs() + gapMs) {
        return true;
      }
    }
    return false;
  }

  /**
   * When the cluster of sessions (sessions less than two gaps apart) whose last event is at {@code
   * lastEventMs} is dropped: two gaps and three slices after that event's close boundary + allowed
   * lateness. A node accepts an event on its own only when its session would accept events (close
   * boundary + slice + lateness after the lateness watermark), and otherwise only into a session of
   * its partition that accepts events, of the same cluster; either way every session the event is
   * less than the gap from is still held when its Partial arrives.
   */
  private long dropBoundary(long lastEventMs) {
    return Snapshots.saturatingAdd(
        Snapshots.saturatingAdd(closeBoundary(lastEventMs), 3 * sliceMs + 2 * gapMs),
        allowedLatenessMs);
  }

  @Override
  public int advance(long closeMs, long latenessMs, ResultSink sink) {
    lastLatenessMs = Math.max(lastLatenessMs, latenessMs);
    LinkedHashSet<String> todo = new LinkedHashSet<>(dirty);
    dirty.clear();
    take(due.headMap(closeMs, true), todo);
    take(dropDue.headMap(latenessMs, true), todo);
    int emitted = 0;
    for (String key : todo) {
      KeySessions ks = keys.get(key);
      if (ks != null) {
        emitted += process(key, ks, closeMs, latenessMs, sink);
      }
    }
    return emitted;
  }

  private static void take(
      NavigableMap<Long, LinkedHashSet<String>> ready, LinkedHashSet<String> todo) {
    for (LinkedHashSet<String> k : ready.values()) {
      todo.addAll(k);
    }
    ready.clear();
  }

  private int process(String key, KeySessions ks, long closeMs, long latenessMs, ResultSink sink) {
    unschedule(key, ks);
    int emitted = 0;
    long nextClose = NOT_DUE;
    long nextDrop = NOT_DUE;
    List<Session> sessions = sessions(ks);
    for (Session session : sessions) {
      long close = closeBoundary(session.lastMs);
      if (close > closeMs) {
        nextClose = Math.min(nextClose, close);
      } else {
        emitted += emitIfNeeded(key, ks, session, sink);
      }
    }
    // clusters: runs of sessions less than two gaps apart, dropped together once closed
    int i = 0;
    while (i < sessions.size()) {
      int j = i;
      while (j + 1 < sessions.size()
          && sessions.get(j + 1).firstMs - sessions.get(j).lastMs < 2 * gapMs) {
        j++;
      }
      Session last = sessions.get(j);
      long drop = dropBoundary(last.lastMs);
      if (drop <= latenessMs && closeBoundary(last.lastMs) <= closeMs) {
        for (int k = i; k <= j; k++) {
          Session session = sessions.get(k);
          for (SessionSlice slice : session.slices) {
            heldPartials -= slice.sources.held();
          }
          ks.slices.subMap(session.firstSliceMs, true, session.lastSliceMs, true).clear();
        }
        ks.emitted.headMap(last.lastMs, true).clear();
      } else {
        nextDrop = Math.min(nextDrop, drop);
      }
      i = j + 1;
    }
    if (ks.slices.isEmpty()) {
      keys.remove(key);
      return emitted;
    }
    if (nextClose != NOT_DUE) {
      ks.dueAtMs = nextClose;
      due.computeIfAbsent(nextClose, t -> new LinkedHashSet<>()).add(key);
    }
    if (nextDrop != NOT_DUE) {
      ks.dropDueAtMs = nextDrop;
      dropDue.computeIfAbsent(nextDrop, t -> new LinkedHashSet<>()).add(key);
    }
    return emitted;
  }

  private void unschedule(String key, KeySessions ks) {
    ks.dueAtMs = unschedule(due, key, ks.dueAtMs);
    ks.dropDueAtMs = unschedule(dropDue, key, ks.dropDueAtMs);
  }

  private static long unschedule(
      TreeMap<Long, LinkedHashSet<String>> schedule, String key, long at) {
    if (at != NOT_DUE) {
      LinkedHashSet<String> keysAt = schedule.get(at);
      if (keysAt != null) {
        keysAt.remove(key);
        if (keysAt.isEmpty()) {
          schedule.remove(at);
        }
      }
    }
    return NOT_DUE;
  }

  /** The key's sessions: maximal runs of slices whose extents are less than the gap apart. */
  private List<Session> sessions(KeySessions ks) {
    List<Session> sessions = new ArrayList<>();
    Session current = null;
    for (Map.Entry<Long, SessionSlice> e : ks.slices.entrySet()) {
      SessionSlice slice = e.getValue();
      long first = slice.sources.firstEventMs();
      long last = slice.sources.lastEventMs();
      if (current != null && first - current.lastMs < gapMs) {
        current.lastMs = Math.max(current.lastMs, last);
        current.lastSliceMs = e.getKey();
      } else {
        current = new Session(first, last, e.getKey());
        sessions.add(current);
      }
      current.slices.add(slice);
      current.changed |= slice.changed;
    }
    return sessions;
  }

  private int emitIfNeeded(String key, KeySessions ks, Session session, ResultSink sink) {
    NavigableMap<Long, Emitted> covered =
        ks.emitted.subMap(session.firstMs, true, session.lastMs, true);
    Emitted own = ks.emitted.get(session.firstMs);
    boolean absorbs = covered.size() > (own == null ? 0 : 1);
    if (own != null && !absorbs && !session.changed && own.lastMs == session.lastMs) {
      return 0;
    }
    int revision = 0;
    for (Emitted x : covered.values()) {
      revision = Math.max(revision, x.revision + 1);
    }
    Aggregate merged = Aggregate.empty(sketchSpec);
    Partial earliest = null;
    ResultSources.Builder sources = new ResultSources.Builder();
    for (SessionSlice slice : session.slices) { // canonical order: slice, then source
      slice.sources.mergeInto(merged);
      slice.sources.addSourcesTo(sources);
      Partial e = slice.sources.earliest();
      if (e != null && (earliest == null || e.firstEventMs() < earliest.firstEventMs())) {
        earliest = e;
      }
      slice.changed = false;
    }
    String[] dimensions = earliest == null ? null : earliest.dimensions();
    sink.accept(
        new FinalResult(
            key,
            session.firstMs,
            session.lastMs + 1,
            merged,
            revision,
            dimensions,
            FinalResult.NOT_SUPERSEDED,
            sources.build()));
    int emitted = 1;
    for (Map.Entry<Long, Emitted> x : covered.entrySet()) {
      if (x.getKey() != session.firstMs) {
        sink.accept(
            new FinalResult(
                key,
                x.getKey(),
                x.getValue().lastMs + 1,
                Aggregate.empty(sketchSpec),
                x.getValue().revision + 1,
                null,
                session.firstMs));
        emitted++;
      }
    }
    covered.clear();
    ks.emitted.put(session.firstMs, new Emitted(session.lastMs, revision));
    return emitted;
  }

  /** The merged aggregate of the key's session starting at {@code startMs}, or null. */
  Aggregate merged(String key, long startMs) {
    KeySessions ks = keys.get(key);
    if (ks == null) {
      return null;
    }
    for (Session session : sessions(ks)) {
      if (session.firstMs == startMs) {
        Aggregate merged = Aggregate.empty(sketchSpec);
        for (SessionSlice slice : session.slices) {
          slice.sources.mergeInto(merged);
        }
        return merged;
      }
    }
    return null;
  }

  @Override
  public long heldPartials() {
    return heldPartials;
  }

  /** Keys with held sessions. */
  @Override
  public int openWindows() {
    return keys.size();
  }

  @Override
  public void writeTo(DataOutputStream out) throws IOException {
    out.writeLong(lastLatenessMs);
    out.writeInt(keys.size());
    for (Map.Entry<String, KeySessions> e : keys.entrySet()) {
      Snapshots.writeString(out, e.getKey());
      KeySessions ks = e.getValue();
      out.writeInt(ks.slices.size());
      for (Map.Entry<Long, SessionSlice> s : ks.slices.entrySet()) {
        out.writeLong(s.getKey());
        out.writeByte(s.getValue().changed ? 1 : 0);
        s.getValue().sources.writeTo(out);
      }
      out.writeInt(ks.emitted.size());
      for (Map.Entry<Long, Emitted> x : ks.emitted.entrySet()) {
        out.writeLong(x.getKey());
        out.writeLong(x.getValue().lastMs);
        out.writeInt(x.getValue().revision);
      }
    }
  }

  static SessionMerge readFrom(
      ByteBuffer in,
      WindowShape.Session shape,
      long allowedLatenessMs,
      SketchSpec sketchSpec,
      int sourcePartitions) {
    SessionMerge m = new SessionMerge(shape, allowedLatenessMs, sketchSpec);
    m.lastLatenessMs = in.getLong();
    int keyCount = Snapshots.count(in, 12);
    for (int i = 0; i < keyCount; i++) {
      String key = Snapshots.readString(in);
      KeySessions ks = new KeySessions();
      int sliceCount = Snapshots.count(in, 13);
      for (int s = 0; s < sliceCount; s++) {
        long start = in.getLong();
        boolean changed = in.get() != 0;
        SessionSlice slice = new SessionSlice(SourcePartials.readFrom(in, sourcePartitions));
        slice.changed = changed;
        m.heldPartials += slice.sources.held();
        ks.slices.put(start, slice);
      }
      int emittedCount = Snapshots.count(in, 20);
      for (int x = 0; x < emittedCount; x++) {
        ks.emitted.put(in.getLong(), new Emitted(in.getLong(), in.getInt()));
      }
      m.keys.put(key, ks);
      m.dirty.add(key); // re-evaluated on the next advance: emission is idempotent
    }
    return m;
  }

  private static final class KeySessions {
    final TreeMap<Long, SessionSlice> slices = new TreeMap<>();
    final TreeMap<Long, Emitted> emitted = new TreeMap<>(); // by session start
    long dueAtMs = NOT_DUE;
    long dropDueAtMs = NOT_DUE;
  }

  private static final class SessionSlice {
    final SourcePartials sources;
    boolean changed; // since the session containing it was last emitted

    SessionSlice(SourcePartials sources) {
      this.sources = sources;
    }
  }

  /** What was last written under result key {@code key@start}. */
  private record Emitted(long lastMs, int revision) {}

  private static final class Session {
    final long firstMs;
    long lastMs;
    final long firstSliceMs;
    long lastSliceMs;
    boolean changed;
    final List<SessionSlice> slices = new ArrayList<>(2);

    Session(long firstMs, long lastMs, long sliceMs) {
      this.firstMs = firstMs;
      this.lastMs = lastMs;
      this.firstSliceMs = sliceMs;
      this.lastSliceMs = sliceMs;
    }
  }
}

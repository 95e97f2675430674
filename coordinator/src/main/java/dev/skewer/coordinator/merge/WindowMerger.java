package dev.skewer.coordinator.merge;

import dev.skewer.core.checkpoint.CapturedState;
import dev.skewer.core.checkpoint.CheckpointFormatException;
import dev.skewer.core.checkpoint.StateOutput;
import dev.skewer.core.job.WindowSpec;
import dev.skewer.core.window.SliceAssigner;
import dev.skewer.core.window.WindowShape;
import dev.skewer.core.wire.Partial;
import dev.skewer.core.wire.Watermark;
import dev.skewer.core.wire.WireFormatException;
import dev.skewer.sketches.Aggregate;
import dev.skewer.sketches.SketchSpec;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;

/**
 * Merges the Partials of one partials partition into final Results (EMIT FINAL), for every window
 * shape, by dispatching to the shape's engine: {@link TumblingMerge}, {@link HoppingMerge} (windows
 * composed from slices) or {@link SessionMerge} (sessions chained from slice extents). The merger
 * owns what all shapes share: the per-source watermarks and epochs ({@link SourceWatermarks}), the
 * counters, and the snapshot. The shape comes with the Partials ({@link Partial#shape()}), so the
 * merger needs no window configuration; a merger serves one shape, fixed by the constructor or by
 * the first Partial, and refuses Partials of another ({@link #mismatchedPartials()}).
 *
 * <p>Contract (each engine states how its shape applies it):
 *
 * <ul>
 *   <li>Per (key, slice) it keeps the latest Partial of each source partition ({@link
 *       SourcePartials}: replace, never add; merged in source order), so replays are idempotent and
 *       results do not depend on arrival order.
 *   <li>When the close watermark ({@link SourceWatermarks#global()}) reaches a result's end, the
 *       result is emitted once with revision 0; until the lateness watermark ({@link
 *       SourceWatermarks#latenessMs()}) reaches end + allowed lateness a Partial that changes it
 *       yields the next revision on the next {@link #advance}; after that it is dropped, and a
 *       Partial for it is counted in {@link #latePartials()} and ignored. Nodes announce a lateness
 *       watermark only after the Partials it covers, so a late Partial means a zombie or a bug,
 *       never a normal run.
 *   <li>Messages of a source that follow a lost one (sequence numbers) are held, but its watermarks
 *       are refused until its next epoch, so a lost Partial never lets a window close or drop
 *       without it ({@link #lostMessages()}).
 * </ul>
 *
 * <p>Not thread-safe: one owner (the coordinator's event loop).
 */
public final class WindowMerger {

  // configuration
  private final long allowedLatenessMs;
  private final SketchSpec sketchSpec;

  // state
  private SourceWatermarks watermarks;
  private WindowShape shape; // null until fixed by the constructor or the first Partial
  private SliceMerge engine; // null until the shape is fixed
  private long latePartials;
  private long stalePartials;
  private long mismatchedPartials;
  private long lostMessages;

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
    engine = engineFor(s, allowedLatenessMs, sketchSpec);
  }

  private static SliceMerge engineFor(WindowShape s, long allowedLatenessMs, SketchSpec spec) {
    if (s instanceof WindowShape.Hopping h) {
      return new HoppingMerge(h, allowedLatenessMs, spec);
    }
    if (s instanceof WindowShape.Session w) {
      return new SessionMerge(w, allowedLatenessMs, spec);
    }
    return new TumblingMerge(allowedLatenessMs, spec);
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
    countLoss(p.sourcePartition(), p.seq());
    if (shape == null) {
      fixShape(p.shape());
    } else if (!shape.equals(p.shape())) {
      mismatchedPartials++;
      return;
    }
    switch (engine.accept(p, watermarks.sourcePartitions())) {
      case STALE -> stalePartials++;
      case LATE -> latePartials++;
      case MISMATCHED -> mismatchedPartials++;
      default -> {}
    }
  }

  /**
   * Applies a watermark message.
   *
   * @return false if it was refused as stale
   */
  public boolean accept(Watermark w) {
    boolean gapBefore =
        w.sourcePartition() < watermarks.sourcePartitions()
            && watermarks.gap(w.sourcePartition())
            && watermarks.epoch(w.sourcePartition()) == w.epoch();
    boolean accepted = watermarks.update(w);
    if (!accepted && !gapBefore && watermarks.gap(w.sourcePartition())) {
      lostMessages++; // this watermark revealed the loss
    }
    return accepted;
  }

  private void countLoss(int source, long seq) {
    boolean before = watermarks.gap(source);
    watermarks.observeSeq(source, seq);
    if (!before && watermarks.gap(source)) {
      lostMessages++;
    }
  }

  /** Grows the source partition count (from topic metadata). */
  public void resizeSources(int sourcePartitions) {
    watermarks.resize(sourcePartitions);
  }

  /**
   * Emits final results and revisions for everything the global watermark has closed, then drops
   * what is past its allowed lateness.
   *
   * @return the number of results emitted
   */
  public int advance(ResultSink sink) {
    long close = watermarks.global();
    if (close == Long.MIN_VALUE || engine == null) {
      return 0;
    }
    return engine.advance(close, watermarks.latenessMs(), sink);
  }

  /**
   * The merged aggregate of a held (key, window) — for sessions (key, session start) — or null if
   * none is held.
   */
  public Aggregate merged(String key, long windowEndMs) {
    if (engine instanceof HoppingMerge h) {
      return h.merged(key, windowEndMs);
    }
    if (engine instanceof SessionMerge s) {
      return s.merged(key, windowEndMs);
    }
    if (engine instanceof TumblingMerge t) {
      return t.merged(key, windowEndMs);
    }
    return null;
  }

  /** The close watermark: results ending at or before it have been emitted. */
  public long globalWatermarkMs() {
    return watermarks.global();
  }

  /** What this partition publishes for the nodes to adopt ({@link SourceWatermarks#frontierMs}). */
  public long frontierMs() {
    return watermarks.frontierMs();
  }

  public SourceWatermarks watermarks() {
    return watermarks;
  }

  /** Partials that arrived for results already dropped (after allowed lateness). */
  public long latePartials() {
    return latePartials;
  }

  /** Partials refused for an older epoch or version than one already held. */
  public long stalePartials() {
    return stalePartials;
  }

  /**
   * Times a source's message was found missing (a lost send): that source's watermarks are refused
   * until its next epoch.
   */
  public long lostMessages() {
    return lostMessages;
  }

  /** Partials refused because their window shape or slice length is not this merger's. */
  public long mismatchedPartials() {
    return mismatchedPartials;
  }

  /** Partials currently held. */
  public long heldPartials() {
    return engine == null ? 0 : engine.heldPartials();
  }

  /** Windows currently held (hopping: slices; sessions: keys with sessions). */
  public int openWindows() {
    return engine == null ? 0 : engine.openWindows();
  }

  private static final byte SNAPSHOT_TUMBLING_V1 = 1;
  private static final byte SNAPSHOT_SLICED_V2 = 2;
  private static final byte SNAPSHOT_VERSION = 3;
  private static final byte SHAPE_NONE = -1;
  private static final byte SHAPE_TUMBLING = 0;

  /**
   * The whole state, encoded: {@code version:u8 (3) watermarks shape:i8 (-1 none, 0 tumbling, 1
   * hopping, 2 session) a:i64 b:i64 (hopping size and hop, session gap) stale:i64 late:i64
   * mismatched:i64 lost:i64 engine}. Restoring it and replaying the partials topic from the same
   * offset yields the same results. Snapshots of format 1 (tumbling) and 2 (hopping, session) are
   * still restored.
   */
  public byte[] snapshot() {
    return capture().encode();
  }

  /**
   * The state for {@link #snapshot()}, captured now and encoded by the result — on another thread
   * if need be, as long as no partial is merged and nothing advanced until it has encoded: the
   * watermarks, shape and counters are encoded now (their changes meanwhile, such as {@link
   * #resizeSources}, are the next snapshot's), the held partials when it encodes.
   */
  public CapturedState capture() {
    StateOutput bytes = new StateOutput();
    DataOutputStream out = new DataOutputStream(bytes);
    try {
      out.writeByte(SNAPSHOT_VERSION);
      watermarks.writeTo(out);
      if (shape instanceof WindowShape.Hopping h) {
        out.writeByte(h.code());
        out.writeLong(h.sizeMs());
        out.writeLong(h.hopMs());
      } else if (shape instanceof WindowShape.Session w) {
        out.writeByte(w.code());
        out.writeLong(w.gapMs());
        out.writeLong(0);
      } else {
        out.writeByte(shape == null ? SHAPE_NONE : SHAPE_TUMBLING);
        out.writeLong(0);
        out.writeLong(0);
      }
      out.writeLong(stalePartials);
      out.writeLong(latePartials);
      out.writeLong(mismatchedPartials);
      out.writeLong(lostMessages);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // in-memory stream: cannot happen
    }
    SliceMerge held = engine;
    return () -> {
      try (out) {
        if (held != null) {
          held.writeTo(out);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e); // in-memory stream: cannot happen
      }
      return bytes.toByteArray();
    };
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
      WindowMerger m = new WindowMerger(sourcePartitions, allowedLatenessMs, sketchSpec);
      m.watermarks = SourceWatermarks.readFrom(in, sourcePartitions, version != SNAPSHOT_VERSION);
      int sources = m.watermarks.sourcePartitions();
      if (version == SNAPSHOT_TUMBLING_V1) {
        m.shape = WindowShape.Tumbling.INSTANCE;
        m.engine = TumblingMerge.readFrom(in, allowedLatenessMs, sketchSpec, sources);
      } else if (version == SNAPSHOT_SLICED_V2 || version == SNAPSHOT_VERSION) {
        byte code = in.get();
        long a = in.getLong();
        long b = in.getLong();
        m.stalePartials = in.getLong();
        m.latePartials = in.getLong();
        if (version == SNAPSHOT_VERSION) {
          m.mismatchedPartials = in.getLong();
          m.lostMessages = in.getLong();
        }
        m.shape = shapeOf(code, a, b);
        if (m.shape instanceof WindowShape.Hopping h) {
          m.engine =
              HoppingMerge.readFrom(
                  in, h, allowedLatenessMs, sketchSpec, sources, version != SNAPSHOT_VERSION);
        } else if (m.shape instanceof WindowShape.Session w) {
          m.engine = SessionMerge.readFrom(in, w, allowedLatenessMs, sketchSpec, sources);
        } else if (m.shape != null) {
          m.engine = TumblingMerge.readFrom(in, allowedLatenessMs, sketchSpec, sources);
        }
      } else {
        throw new CheckpointFormatException("unknown coordinator snapshot version " + version);
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

  private static WindowShape shapeOf(byte code, long a, long b) {
    try {
      return switch (code) {
        case SHAPE_NONE -> null;
        case SHAPE_TUMBLING -> WindowShape.Tumbling.INSTANCE;
        case 1 -> new WindowShape.Hopping(a, b);
        case 2 -> new WindowShape.Session(a);
        default ->
            throw new CheckpointFormatException("unknown window shape " + code + " in snapshot");
      };
    } catch (IllegalArgumentException e) {
      throw new CheckpointFormatException("invalid window shape in snapshot: " + e.getMessage(), e);
    }
  }
}

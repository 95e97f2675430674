package dev.skewer.node.aggregate;

import dev.skewer.core.checkpoint.CheckpointFormatException;
import dev.skewer.core.window.WindowAssigner;
import dev.skewer.core.wire.Partial;
import dev.skewer.core.wire.Watermark;
import dev.skewer.sketches.Aggregate;
import dev.skewer.sketches.AggregateCodec;
import dev.skewer.sketches.SketchSpec;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * Pre-aggregates the events of one source partition per (key, window) and decides emission.
 *
 * <p>Contract:
 *
 * <ul>
 *   <li>The watermark is {@code max event time seen - delay}; it never goes back.
 *   <li>An event whose window end + allowed lateness ≤ watermark is too late: {@link #update}
 *       returns {@link Outcome#LATE} and the state is not touched (the caller routes it to the
 *       late topic).
 *   <li>{@link #emit} emits a Partial for every (key, window) whose window end ≤ watermark and
 *       that changed since its last emission. Its version is the number of events folded in, so
 *       every re-emission after a late-but-allowed event has a higher version, and a replay
 *       from a checkpoint reproduces the same versions. Then it drops windows whose end +
 *       allowed lateness ≤ watermark.
 *   <li>{@link #snapshot} and {@link #restore} capture and rebuild the whole state; restoring
 *       and replaying the same events yields the same Partials as the original run.
 *   <li>{@link #finalizeOpenWindows} (end of input after idleness) moves the watermark to the end
 *       of the latest open window, so every open window is emitted on the next {@link #emit}.
 * </ul>
 *
 * <p>Not thread-safe: one owner (the ingest verticle's event loop).
 */
public final class PartitionAggregator {

  /** What became of one event. */
  public enum Outcome {
    ACCEPTED,
    LATE
  }

  // configuration
  private final int partition;
  private final WindowAssigner windows;
  private final long delayMs;
  private final long allowedLatenessMs;
  private final SketchSpec sketchSpec;

  // state
  private long epoch;
  private long maxEventTimeMs = Long.MIN_VALUE;
  private long watermarkMs = Long.MIN_VALUE;
  private final TreeMap<Long, WindowState> open = new TreeMap<>();
  private WindowState lastWindow; // one-entry cache: consecutive events mostly share a window
  private long openKeyWindows;

  public PartitionAggregator(
      int partition,
      long epoch,
      WindowAssigner windows,
      long delayMs,
      long allowedLatenessMs,
      SketchSpec sketchSpec) {
    if (delayMs < 0) {
      throw new IllegalArgumentException("delayMs must be >= 0, was " + delayMs);
    }
    if (allowedLatenessMs < 0) {
      throw new IllegalArgumentException("allowedLatenessMs must be >= 0, was " + allowedLatenessMs);
    }
    this.partition = partition;
    this.epoch = epoch;
    this.windows = windows;
    this.delayMs = delayMs;
    this.allowedLatenessMs = allowedLatenessMs;
    this.sketchSpec = sketchSpec;
  }

  /**
   * Folds in one event; see the class contract for lateness.
   *
   * @param key the key with any salt already stripped
   */
  public Outcome update(
      String key,
      long eventTimeMs,
      double[] numeric,
      String distinctItem,
      String frequentItem,
      double quantileValue) {
    long windowStartMs = windows.windowStartMs(eventTimeMs);
    WindowState window = lastWindow;
    if (window == null || window.startMs != windowStartMs) {
      long windowEndMs = windows.windowEndMs(windowStartMs);
      if (isTooLate(windowEndMs)) {
        return Outcome.LATE;
      }
      window = open.get(windowStartMs);
      if (window == null) {
        window = new WindowState(windowStartMs, windowEndMs);
        open.put(windowStartMs, window);
      }
      lastWindow = window;
    } else if (isTooLate(window.endMs)) {
      return Outcome.LATE;
    }
    KeyWindow entry = window.keys.get(key);
    if (entry == null) {
      entry = new KeyWindow(Aggregate.empty(sketchSpec));
      window.keys.put(key, entry);
      openKeyWindows++;
    }
    entry.aggregate.update(numeric, distinctItem, frequentItem, quantileValue);
    if (!entry.dirty) {
      entry.dirty = true;
      window.dirtyKeys++;
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

  private boolean isTooLate(long windowEndMs) {
    return watermarkMs != Long.MIN_VALUE
        && saturatingAdd(windowEndMs, allowedLatenessMs) <= watermarkMs;
  }

  /**
   * Emits the Partials of every closed window that changed since its last emission, in window
   * order, then drops windows past their allowed lateness.
   *
   * @return the number of Partials emitted
   */
  public int emit(PartialSink sink) {
    int emitted = 0;
    Iterator<Map.Entry<Long, WindowState>> it = open.entrySet().iterator();
    while (it.hasNext()) {
      WindowState window = it.next().getValue();
      if (window.endMs > watermarkMs) {
        break; // windows are ordered by start and all have the same size class: later ones too
      }
      if (window.dirtyKeys > 0) {
        for (Map.Entry<String, KeyWindow> e : window.keys.entrySet()) {
          KeyWindow kw = e.getValue();
          if (kw.dirty) {
            kw.dirty = false;
            // the version is the number of events folded in: it grows with every change and a
            // replay from a checkpoint yields the same (version, content) pairs
            kw.version = kw.aggregate.count();
            sink.accept(
                new Partial(
                    partition,
                    epoch,
                    kw.version,
                    e.getKey(),
                    window.startMs,
                    window.endMs,
                    AggregateCodec.encode(kw.aggregate)));
            emitted++;
          }
        }
        window.dirtyKeys = 0;
      }
      if (saturatingAdd(window.endMs, allowedLatenessMs) <= watermarkMs) {
        openKeyWindows -= window.keys.size();
        it.remove();
        if (lastWindow == window) {
          lastWindow = null;
        }
      }
    }
    return emitted;
  }

  /**
   * End of input: moves the watermark to the end of the latest open window so the next {@link
   * #emit} emits (and, with no allowed lateness, drops) every open window. Later events for those
   * windows are late.
   */
  public void finalizeOpenWindows() {
    if (!open.isEmpty()) {
      long lastEnd = open.lastEntry().getValue().endMs;
      if (lastEnd > watermarkMs) {
        watermarkMs = lastEnd;
      }
    }
  }

  /** The current watermark as a wire message. */
  public Watermark watermark(boolean idle) {
    return new Watermark(partition, epoch, watermarkMs, idle);
  }

  public int partition() {
    return partition;
  }

  public long epoch() {
    return epoch;
  }

  public long watermarkMs() {
    return watermarkMs;
  }

  public long maxEventTimeMs() {
    return maxEventTimeMs;
  }

  /** Number of open windows (slices) held. */
  public int openWindows() {
    return open.size();
  }

  /** Number of (key, window) aggregates held. */
  public long openKeyWindows() {
    return openKeyWindows;
  }

  private static final byte SNAPSHOT_VERSION = 1;

  /**
   * The whole state, encoded: {@code version:u8 partition:i32 maxEventTimeMs:i64
   * watermarkMs:i64 windows:i32 {startMs:i64 endMs:i64 keys:i32 {keyLength:i32 key:utf8
   * dirty:u8 version:i64 aggregateLength:i32 aggregate}*}*}.
   */
  public byte[] snapshot() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + (int) Math.min(openKeyWindows * 96, 1 << 26));
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(SNAPSHOT_VERSION);
      out.writeInt(partition);
      out.writeLong(maxEventTimeMs);
      out.writeLong(watermarkMs);
      out.writeInt(open.size());
      for (WindowState w : open.values()) {
        out.writeLong(w.startMs);
        out.writeLong(w.endMs);
        out.writeInt(w.keys.size());
        for (Map.Entry<String, KeyWindow> e : w.keys.entrySet()) {
          byte[] key = e.getKey().getBytes(StandardCharsets.UTF_8);
          out.writeInt(key.length);
          out.write(key);
          KeyWindow kw = e.getValue();
          out.writeByte(kw.dirty ? 1 : 0);
          out.writeLong(kw.version);
          byte[] agg = AggregateCodec.encode(kw.aggregate);
          out.writeInt(agg.length);
          out.write(agg);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e); // in-memory stream: cannot happen
    }
    return bytes.toByteArray();
  }

  /**
   * Rebuilds an aggregator from {@link #snapshot} bytes, owned now under {@code epoch}.
   *
   * @throws CheckpointFormatException if the bytes are not a valid snapshot
   */
  public static PartitionAggregator restore(
      byte[] snapshot,
      long epoch,
      WindowAssigner windows,
      long delayMs,
      long allowedLatenessMs,
      SketchSpec sketchSpec) {
    try {
      ByteBuffer in = ByteBuffer.wrap(snapshot);
      byte version = in.get();
      if (version != SNAPSHOT_VERSION) {
        throw new CheckpointFormatException("unknown node snapshot version " + version);
      }
      PartitionAggregator a =
          new PartitionAggregator(in.getInt(), epoch, windows, delayMs, allowedLatenessMs, sketchSpec);
      a.maxEventTimeMs = in.getLong();
      a.watermarkMs = in.getLong();
      int windowCount = count(in, 20);
      for (int i = 0; i < windowCount; i++) {
        WindowState w = new WindowState(in.getLong(), in.getLong());
        int keys = count(in, 17);
        for (int k = 0; k < keys; k++) {
          byte[] key = new byte[count(in, 1)];
          in.get(key);
          KeyWindow kw = new KeyWindow(null);
          boolean dirty = in.get() != 0;
          long kwVersion = in.getLong();
          int aggLength = count(in, 1);
          Aggregate agg = AggregateCodec.decode(snapshot, in.position(), aggLength);
          in.position(in.position() + aggLength);
          if (!agg.spec().equals(sketchSpec)) {
            throw new CheckpointFormatException(
                "snapshot aggregates use another sketch spec than the job: " + agg.spec());
          }
          kw = new KeyWindow(agg);
          kw.dirty = dirty;
          kw.version = kwVersion;
          w.keys.put(new String(key, StandardCharsets.UTF_8), kw);
          if (dirty) {
            w.dirtyKeys++;
          }
          a.openKeyWindows++;
        }
        a.open.put(w.startMs, w);
      }
      if (in.hasRemaining()) {
        throw new CheckpointFormatException(in.remaining() + " trailing bytes in node snapshot");
      }
      return a;
    } catch (BufferUnderflowException | dev.skewer.sketches.CodecException e) {
      throw new CheckpointFormatException("corrupt node snapshot: " + e, e);
    }
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
    return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
  }

  private static long saturatingSubtract(long a, long b) {
    long r = a - b;
    return ((a ^ b) & (a ^ r)) < 0 ? Long.MIN_VALUE : r;
  }

  private static final class WindowState {
    final long startMs;
    final long endMs;
    final HashMap<String, KeyWindow> keys = new HashMap<>();
    int dirtyKeys;

    WindowState(long startMs, long endMs) {
      this.startMs = startMs;
      this.endMs = endMs;
    }
  }

  private static final class KeyWindow {
    final Aggregate aggregate;
    long version;
    boolean dirty;

    KeyWindow(Aggregate aggregate) {
      this.aggregate = aggregate;
    }
  }
}

package dev.skewer.node.aggregate;

import dev.skewer.core.checkpoint.CheckpointFormatException;
import dev.skewer.core.window.SliceAssigner;
import dev.skewer.core.window.WindowShape;
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
 * Pre-aggregates the events of one source partition per (key, slice) and decides emission. A slice
 * is what the {@link SliceAssigner} says: the window for tumbling windows, gcd(size, hop) for
 * hopping slices, a quarter of the gap for sessions; every event updates exactly one slice,
 * whatever the windows' overlap. Per (key, slice) it keeps the aggregate, the first and last event
 * time and the earliest event's dimension values; each Partial carries them with the window shape,
 * so the coordinator composes windows and sessions without configuration.
 *
 * <p>Contract:
 *
 * <ul>
 *   <li>The watermark is {@code max event time seen - delay}; it never goes back.
 *   <li>An event whose slice's {@linkplain SliceAssigner#lateBoundaryMs late boundary} (the end of
 *       the earliest result the slice feeds) + allowed lateness ≤ watermark is too late: {@link
 *       #update} returns {@link Outcome#LATE} and the state is not touched (the caller routes it to
 *       the late topic). So an event is in every result it belongs to, or in none.
 *   <li>{@link #emit} emits a Partial for every (key, slice) whose slice end ≤ watermark and that
 *       changed since its last emission. Its version is the number of events folded in, so every
 *       re-emission after a late-but-allowed event has a higher version, and a replay from a
 *       checkpoint reproduces the same versions. Then it drops slices whose late boundary + allowed
 *       lateness ≤ watermark: state per key does not grow with size/hop.
 *   <li>{@link #snapshot} and {@link #restore} capture and rebuild the whole state; restoring and
 *       replaying the same events yields the same Partials as the original run.
 *   <li>{@link #finalizeOpenSlices} (end of input after idleness) moves the watermark to where
 *       every result of the latest open slice can close, so every open slice is emitted on the next
 *       {@link #emit}.
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
  private final SliceAssigner slices;
  private final long delayMs;
  private final long allowedLatenessMs;
  private final SketchSpec sketchSpec;
  private final WindowShape shape;

  // state
  private long epoch;
  private long maxEventTimeMs = Long.MIN_VALUE;
  private long watermarkMs = Long.MIN_VALUE;
  private final TreeMap<Long, SliceState> open = new TreeMap<>();
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
  }

  /**
   * Folds in one event without dimensions; see the class contract for lateness.
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
    return update(key, eventTimeMs, numeric, distinctItem, frequentItem, quantileValue, null);
  }

  /**
   * Folds in one event; see the class contract for lateness.
   *
   * @param key the key with any salt already stripped
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
    SliceState slice = lastSlice;
    if (slice == null || slice.startMs != sliceStartMs) {
      if (isTooLate(slices.lateBoundaryMs(sliceStartMs))) {
        return Outcome.LATE;
      }
      slice = open.get(sliceStartMs);
      if (slice == null) {
        slice = newSlice(sliceStartMs);
        open.put(sliceStartMs, slice);
      }
      lastSlice = slice;
    } else if (isTooLate(slice.lateBoundaryMs)) {
      return Outcome.LATE;
    }
    KeySlice entry = slice.keys.get(key);
    if (entry == null) {
      entry = new KeySlice(Aggregate.empty(sketchSpec));
      slice.keys.put(key, entry);
      openKeySlices++;
    }
    entry.aggregate.update(numeric, distinctItem, frequentItem, quantileValue);
    if (eventTimeMs < entry.firstEventMs) {
      entry.firstEventMs = eventTimeMs;
      if (dimensions != null && dimensions.length > 0) {
        entry.dimensions = dimensions.clone();
      }
    }
    if (eventTimeMs > entry.lastEventMs) {
      entry.lastEventMs = eventTimeMs;
    }
    if (!entry.dirty) {
      entry.dirty = true;
      slice.dirtyKeys++;
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

  private boolean isTooLate(long lateBoundaryMs) {
    return watermarkMs != Long.MIN_VALUE
        && saturatingAdd(lateBoundaryMs, allowedLatenessMs) <= watermarkMs;
  }

  private SliceState newSlice(long startMs) {
    return new SliceState(startMs, slices.sliceEndMs(startMs), slices.lateBoundaryMs(startMs));
  }

  /**
   * Emits the Partials of every closed slice that changed since its last emission, in slice order,
   * then drops slices past their allowed lateness.
   *
   * @return the number of Partials emitted
   */
  public int emit(PartialSink sink) {
    int emitted = 0;
    Iterator<Map.Entry<Long, SliceState>> it = open.entrySet().iterator();
    while (it.hasNext()) {
      SliceState slice = it.next().getValue();
      if (slice.endMs > watermarkMs) {
        break; // slices are ordered by start and all have the same length: later ones too
      }
      if (slice.dirtyKeys > 0) {
        for (Map.Entry<String, KeySlice> e : slice.keys.entrySet()) {
          KeySlice kw = e.getValue();
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
                    slice.startMs,
                    slice.endMs,
                    AggregateCodec.encode(kw.aggregate),
                    shape,
                    kw.firstEventMs,
                    kw.lastEventMs,
                    kw.dimensions));
            emitted++;
          }
        }
        slice.dirtyKeys = 0;
      }
      if (saturatingAdd(slice.lateBoundaryMs, allowedLatenessMs) <= watermarkMs) {
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
   * End of input: moves the watermark to where the coordinator can close every result of the latest
   * open slice ({@link SliceAssigner#finalWatermarkMs}: for tumbling windows its end) so the next
   * {@link #emit} emits (and, with no allowed lateness, drops) every open slice. Later events for
   * those slices are late.
   */
  public void finalizeOpenSlices() {
    if (!open.isEmpty()) {
      long lastEnd = slices.finalWatermarkMs(open.lastKey());
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

  /** Number of open slices held. */
  public int openSlices() {
    return open.size();
  }

  /** Number of (key, slice) aggregates held. */
  public long openKeySlices() {
    return openKeySlices;
  }

  private static final byte SNAPSHOT_VERSION = 2;
  private static final byte SNAPSHOT_VERSION_1 = 1;

  /**
   * The whole state, encoded: {@code version:u8 partition:i32 maxEventTimeMs:i64 watermarkMs:i64
   * slices:i32 {startMs:i64 endMs:i64 keys:i32 {keyLength:i32 key:utf8 dirty:u8 version:i64
   * firstEventMs:i64 lastEventMs:i64 dimensions:u8 {length:i32 (-1 = absent) value:utf8}*
   * aggregateLength:i32 aggregate}*}*}. Version 1 snapshots (no extent, no dimensions) are still
   * restored.
   */
  public byte[] snapshot() {
    ByteArrayOutputStream bytes =
        new ByteArrayOutputStream(64 + (int) Math.min(openKeySlices * 96, 1 << 26));
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(SNAPSHOT_VERSION);
      out.writeInt(partition);
      out.writeLong(maxEventTimeMs);
      out.writeLong(watermarkMs);
      out.writeInt(open.size());
      for (SliceState w : open.values()) {
        out.writeLong(w.startMs);
        out.writeLong(w.endMs);
        out.writeInt(w.keys.size());
        for (Map.Entry<String, KeySlice> e : w.keys.entrySet()) {
          byte[] key = e.getKey().getBytes(StandardCharsets.UTF_8);
          out.writeInt(key.length);
          out.write(key);
          KeySlice kw = e.getValue();
          out.writeByte(kw.dirty ? 1 : 0);
          out.writeLong(kw.version);
          out.writeLong(kw.firstEventMs);
          out.writeLong(kw.lastEventMs);
          out.writeByte(kw.dimensions.length);
          for (String d : kw.dimensions) {
            if (d == null) {
              out.writeInt(-1);
            } else {
              byte[] v = d.getBytes(StandardCharsets.UTF_8);
              out.writeInt(v.length);
              out.write(v);
            }
          }
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
      SliceAssigner slices,
      long delayMs,
      long allowedLatenessMs,
      SketchSpec sketchSpec) {
    try {
      ByteBuffer in = ByteBuffer.wrap(snapshot);
      byte version = in.get();
      if (version != SNAPSHOT_VERSION && version != SNAPSHOT_VERSION_1) {
        throw new CheckpointFormatException("unknown node snapshot version " + version);
      }
      PartitionAggregator a =
          new PartitionAggregator(
              in.getInt(), epoch, slices, delayMs, allowedLatenessMs, sketchSpec);
      a.maxEventTimeMs = in.getLong();
      a.watermarkMs = in.getLong();
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
                  + ") does not match the job's windows "
                  + slices);
        }
        SliceState w = a.newSlice(startMs);
        int keys = count(in, 17);
        for (int k = 0; k < keys; k++) {
          byte[] key = new byte[count(in, 1)];
          in.get(key);
          KeySlice kw = new KeySlice(null);
          boolean dirty = in.get() != 0;
          long kwVersion = in.getLong();
          long firstEventMs = w.startMs;
          long lastEventMs = w.endMs - 1;
          String[] dims = Partial.NO_DIMENSIONS;
          if (version == SNAPSHOT_VERSION) {
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
          kw = new KeySlice(agg);
          kw.dirty = dirty;
          kw.version = kwVersion;
          kw.firstEventMs = firstEventMs;
          kw.lastEventMs = lastEventMs;
          kw.dimensions = dims;
          w.keys.put(new String(key, StandardCharsets.UTF_8), kw);
          if (dirty) {
            w.dirtyKeys++;
          }
          a.openKeySlices++;
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

  private static final class SliceState {
    final long startMs;
    final long endMs;
    final long lateBoundaryMs;
    final HashMap<String, KeySlice> keys = new HashMap<>();
    int dirtyKeys;

    SliceState(long startMs, long endMs, long lateBoundaryMs) {
      this.startMs = startMs;
      this.endMs = endMs;
      this.lateBoundaryMs = lateBoundaryMs;
    }
  }

  private static final class KeySlice {
    final Aggregate aggregate;
    long version;
    boolean dirty;
    long firstEventMs = Long.MAX_VALUE;
    long lastEventMs = Long.MIN_VALUE;
    String[] dimensions = Partial.NO_DIMENSIONS;

    KeySlice(Aggregate aggregate) {
      this.aggregate = aggregate;
    }
  }
}

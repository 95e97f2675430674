package dev.skewer.core.wire;

import dev.skewer.core.window.WindowShape;
import java.util.Arrays;
import java.util.Objects;

/**
 * One source partition's aggregate of one (key, slice), as of {@code version}. The coordinator
 * keeps the latest Partial per source partition (replace, never add), and drops Partials from an
 * epoch older than the newest it has seen for that source partition.
 *
 * <p>The {@code aggregate} and {@code dimensions} arrays are not copied (the hot path hands them
 * over); treat them as immutable. {@code equals}, {@code hashCode} and {@code toString} use their
 * content.
 *
 * @param sourcePartition the events partition, >= 0
 * @param epoch the fencing epoch of the sending node, >= 0
 * @param version increases with every emission of this (source, key, slice) within an epoch, >= 0
 * @param key the key, salt stripped; non-empty
 * @param sliceStartMs the slice start
 * @param sliceEndMs the slice end, > sliceStartMs
 * @param aggregate the {@code AggregateCodec} bytes; opaque here, non-null
 * @param shape how the coordinator composes results from this slice; non-null
 * @param firstEventMs the earliest event time folded in, in [sliceStartMs, lastEventMs]
 * @param lastEventMs the latest event time folded in, in [firstEventMs, sliceEndMs)
 * @param dimensions the configured dimensions' values of the earliest event folded in ({@code
 *     input.dimensions} order, null where absent); non-null, at most 255 entries
 * @param firstWindowEndMs the end of the first window this Partial counts in, &gt;= sliceEndMs: the
 *     slice's first window, except for events a hopping slice took in after some of its windows had
 *     closed beyond their allowed lateness — those count only in the later windows, and travel as
 *     their own Partial of the same (key, slice)
 * @param seq the position of this message among those its source partition sent, in this epoch, to
 *     this partials partition (0, 1, 2, …), so the coordinator notices a lost one; -1 when unknown
 *     (format 2 and older)
 */
public record Partial(
    int sourcePartition,
    long epoch,
    long version,
    String key,
    long sliceStartMs,
    long sliceEndMs,
    byte[] aggregate,
    WindowShape shape,
    long firstEventMs,
    long lastEventMs,
    String[] dimensions,
    long firstWindowEndMs,
    long seq)
    implements PartialsMessage {

  /** No dimensions. */
  public static final String[] NO_DIMENSIONS = new String[0];

  /** The most dimensions a Partial carries. */
  public static final int MAX_DIMENSIONS = 255;

  public Partial {
    if (sourcePartition < 0) {
      throw new IllegalArgumentException("sourcePartition must be >= 0, was " + sourcePartition);
    }
    if (epoch < 0) {
      throw new IllegalArgumentException("epoch must be >= 0, was " + epoch);
    }
    if (version < 0) {
      throw new IllegalArgumentException("version must be >= 0, was " + version);
    }
    if (key == null || key.isEmpty()) {
      throw new IllegalArgumentException(
          "key must be non-empty, was " + (key == null ? "null" : "''"));
    }
    if (sliceEndMs <= sliceStartMs) {
      throw new IllegalArgumentException(
          "sliceEndMs must be > sliceStartMs (" + sliceStartMs + "), was " + sliceEndMs);
    }
    Objects.requireNonNull(aggregate, "aggregate");
    Objects.requireNonNull(shape, "shape");
    if (firstEventMs < sliceStartMs || firstEventMs > lastEventMs) {
      throw new IllegalArgumentException(
          "firstEventMs must be in [sliceStartMs ("
              + sliceStartMs
              + "), lastEventMs ("
              + lastEventMs
              + ")], was "
              + firstEventMs);
    }
    if (lastEventMs >= sliceEndMs) {
      throw new IllegalArgumentException(
          "lastEventMs must be < sliceEndMs (" + sliceEndMs + "), was " + lastEventMs);
    }
    Objects.requireNonNull(dimensions, "dimensions");
    if (dimensions.length > MAX_DIMENSIONS) {
      throw new IllegalArgumentException(
          "dimensions must have at most " + MAX_DIMENSIONS + " entries, had " + dimensions.length);
    }
    if (firstWindowEndMs < sliceEndMs) {
      throw new IllegalArgumentException(
          "firstWindowEndMs must be >= sliceEndMs (" + sliceEndMs + "), was " + firstWindowEndMs);
    }
    if (seq < -1) {
      throw new IllegalArgumentException("seq must be >= -1, was " + seq);
    }
  }

  /**
   * A Partial of the slice's first window with no sequence number yet (the sender numbers it with
   * {@link #withSeq}).
   */
  public Partial(
      int sourcePartition,
      long epoch,
      long version,
      String key,
      long sliceStartMs,
      long sliceEndMs,
      byte[] aggregate,
      WindowShape shape,
      long firstEventMs,
      long lastEventMs,
      String[] dimensions) {
    this(
        sourcePartition,
        epoch,
        version,
        key,
        sliceStartMs,
        sliceEndMs,
        aggregate,
        shape,
        firstEventMs,
        lastEventMs,
        dimensions,
        sliceEndMs,
        -1);
  }

  /** This Partial numbered {@code seq} among its source's messages to its partials partition. */
  public Partial withSeq(long seq) {
    return new Partial(
        sourcePartition,
        epoch,
        version,
        key,
        sliceStartMs,
        sliceEndMs,
        aggregate,
        shape,
        firstEventMs,
        lastEventMs,
        dimensions,
        firstWindowEndMs,
        seq);
  }

  /**
   * A tumbling-window Partial with no event extent or dimensions: the extent is the whole slice.
   */
  public Partial(
      int sourcePartition,
      long epoch,
      long version,
      String key,
      long sliceStartMs,
      long sliceEndMs,
      byte[] aggregate) {
    this(
        sourcePartition,
        epoch,
        version,
        key,
        sliceStartMs,
        sliceEndMs,
        aggregate,
        WindowShape.Tumbling.INSTANCE,
        sliceStartMs,
        sliceEndMs - 1,
        NO_DIMENSIONS);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Partial p
        && p.sourcePartition == sourcePartition
        && p.epoch == epoch
        && p.version == version
        && p.key.equals(key)
        && p.sliceStartMs == sliceStartMs
        && p.sliceEndMs == sliceEndMs
        && Arrays.equals(p.aggregate, aggregate)
        && p.shape.equals(shape)
        && p.firstEventMs == firstEventMs
        && p.lastEventMs == lastEventMs
        && Arrays.equals(p.dimensions, dimensions)
        && p.firstWindowEndMs == firstWindowEndMs
        && p.seq == seq;
  }

  @Override
  public int hashCode() {
    int h =
        Objects.hash(
            sourcePartition,
            epoch,
            version,
            key,
            sliceStartMs,
            sliceEndMs,
            shape,
            firstEventMs,
            lastEventMs,
            firstWindowEndMs,
            seq);
    return 31 * (31 * h + Arrays.hashCode(aggregate)) + Arrays.hashCode(dimensions);
  }

  @Override
  public String toString() {
    return "Partial[sourcePartition="
        + sourcePartition
        + ", epoch="
        + epoch
        + ", version="
        + version
        + ", key="
        + key
        + ", sliceStartMs="
        + sliceStartMs
        + ", sliceEndMs="
        + sliceEndMs
        + ", aggregate="
        + aggregate.length
        + " bytes #"
        + Integer.toHexString(Arrays.hashCode(aggregate))
        + ", shape="
        + shape
        + ", firstEventMs="
        + firstEventMs
        + ", lastEventMs="
        + lastEventMs
        + ", dimensions="
        + Arrays.toString(dimensions)
        + ", firstWindowEndMs="
        + firstWindowEndMs
        + ", seq="
        + seq
        + "]";
  }
}

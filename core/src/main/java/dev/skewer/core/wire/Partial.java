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
    String[] dimensions)
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
        && Arrays.equals(p.dimensions, dimensions);
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
            lastEventMs);
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
        + "]";
  }
}

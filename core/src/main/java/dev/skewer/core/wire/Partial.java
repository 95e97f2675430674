package dev.skewer.core.wire;

import java.util.Arrays;
import java.util.Objects;

/**
 * One source partition's aggregate of one (key, slice), as of {@code version}. The coordinator
 * keeps the latest Partial per source partition (replace, never add), and drops Partials from
 * an epoch older than the newest it has seen for that source partition.
 *
 * <p>The {@code aggregate} array is not copied (the hot path hands it over); treat it as
 * immutable. {@code equals}, {@code hashCode} and {@code toString} use its content.
 *
 * @param sourcePartition the events partition, >= 0
 * @param epoch the fencing epoch of the sending node, >= 0
 * @param version increases with every emission of this (source, key, slice) within an epoch, >= 0
 * @param key the key, salt stripped; non-empty
 * @param windowStartMs the slice start
 * @param windowEndMs the slice end, > windowStartMs
 * @param aggregate the {@code AggregateCodec} bytes; opaque here, non-null
 */
public record Partial(
    int sourcePartition,
    long epoch,
    long version,
    String key,
    long windowStartMs,
    long windowEndMs,
    byte[] aggregate)
    implements PartialsMessage {

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
      throw new IllegalArgumentException("key must be non-empty, was " + (key == null ? "null" : "''"));
    }
    if (windowEndMs <= windowStartMs) {
      throw new IllegalArgumentException(
          "windowEndMs must be > windowStartMs (" + windowStartMs + "), was " + windowEndMs);
    }
    Objects.requireNonNull(aggregate, "aggregate");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Partial
        && ((Partial) o).sourcePartition == sourcePartition
        && ((Partial) o).epoch == epoch
        && ((Partial) o).version == version
        && ((Partial) o).key.equals(key)
        && ((Partial) o).windowStartMs == windowStartMs
        && ((Partial) o).windowEndMs == windowEndMs
        && Arrays.equals(((Partial) o).aggregate, aggregate);
  }

  @Override
  public int hashCode() {
    int h = Objects.hash(sourcePartition, epoch, version, key, windowStartMs, windowEndMs);
    return 31 * h + Arrays.hashCode(aggregate);
  }

  @Override
  public String toString() {
    return "Partial[sourcePartition=" + sourcePartition + ", epoch=" + epoch + ", version="
        + version + ", key=" + key + ", windowStartMs=" + windowStartMs + ", windowEndMs="
        + windowEndMs + ", aggregate=" + aggregate.length + " bytes #"
        + Integer.toHexString(Arrays.hashCode(aggregate)) + "]";
  }
}

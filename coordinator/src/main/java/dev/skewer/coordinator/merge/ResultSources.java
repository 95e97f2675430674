package dev.skewer.coordinator.merge;

import dev.skewer.core.wire.Partial;
import java.util.Arrays;

/**
 * The source partitions whose Partials a result merges, with the epoch each was produced under (the
 * highest, when a source contributed several): the provenance a result carries.
 *
 * @param partitions ascending
 * @param epochs the epoch of each partition, same order
 */
public record ResultSources(int[] partitions, long[] epochs) {

  /** No source: a superseded session's empty rewrite. */
  public static final ResultSources NONE = new ResultSources(new int[0], new long[0]);

  public ResultSources {
    if (partitions.length != epochs.length) {
      throw new IllegalArgumentException("one epoch per partition");
    }
  }

  @Override
  public int[] partitions() {
    return partitions.clone();
  }

  @Override
  public long[] epochs() {
    return epochs.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ResultSources s
        && Arrays.equals(partitions, s.partitions)
        && Arrays.equals(epochs, s.epochs);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(partitions) * 31 + Arrays.hashCode(epochs);
  }

  @Override
  public String toString() {
    return "ResultSources" + Arrays.toString(partitions) + "@" + Arrays.toString(epochs);
  }

  /**
   * Collects the sources of the Partials a result merges, kept sorted by partition in two small
   * arrays (a result usually has one source; a salted hot key a few). Not thread-safe.
   */
  static final class Builder {
    private int[] partitions = new int[2];
    private long[] epochs = new long[2];
    private int size;

    void add(Partial p) {
      int partition = p.sourcePartition();
      int at = Arrays.binarySearch(partitions, 0, size, partition);
      if (at >= 0) {
        epochs[at] = Math.max(epochs[at], p.epoch());
        return;
      }
      int insert = -at - 1;
      if (size == partitions.length) {
        partitions = Arrays.copyOf(partitions, size * 2);
        epochs = Arrays.copyOf(epochs, size * 2);
      }
      System.arraycopy(partitions, insert, partitions, insert + 1, size - insert);
      System.arraycopy(epochs, insert, epochs, insert + 1, size - insert);
      partitions[insert] = partition;
      epochs[insert] = p.epoch();
      size++;
    }

    ResultSources build() {
      return new ResultSources(Arrays.copyOf(partitions, size), Arrays.copyOf(epochs, size));
    }
  }
}

package dev.skewer.coordinator.merge;

import dev.skewer.core.wire.Partial;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

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

  /** Collects the sources of the Partials a result merges. Not thread-safe. */
  static final class Builder {
    private final TreeMap<Integer, Long> epochBySource = new TreeMap<>();

    void add(Partial p) {
      epochBySource.merge(p.sourcePartition(), p.epoch(), Math::max);
    }

    ResultSources build() {
      int[] partitions = new int[epochBySource.size()];
      long[] epochs = new long[partitions.length];
      int i = 0;
      for (Map.Entry<Integer, Long> e : epochBySource.entrySet()) {
        partitions[i] = e.getKey();
        epochs[i] = e.getValue();
        i++;
      }
      return new ResultSources(partitions, epochs);
    }
  }
}

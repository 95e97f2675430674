package dev.skewer.core.result;

import java.util.Arrays;

/**
 * Where a result came from, written beside it so a reader can judge a streamed number: which source
 * partitions' Partials it merges and under which fencing epoch each was produced, how many of the
 * input's partitions had progressed past the result's end when it was written (the others were idle
 * or behind), the coordinator's close watermark at that moment, and the late events the late topic
 * held for its window by then.
 *
 * @param sourcePartitions the source partitions merged, ascending
 * @param sourceEpochs the epoch of each one's Partials (the highest, if several), same order
 * @param partitionsReporting source partitions whose close point had reached the result's end
 * @param partitionsExpected source partitions of the input topic
 * @param watermarkMs the coordinator's close watermark when the result was written
 * @param lateEvents late events with event time in the window, as far as the coordinator had read
 *     the late topic; -1 where not counted (sessions: a late event has no session)
 */
public record Provenance(
    int[] sourcePartitions,
    long[] sourceEpochs,
    int partitionsReporting,
    int partitionsExpected,
    long watermarkMs,
    long lateEvents) {

  /** The provenance of a result that merges nothing (a superseded session). */
  public static Provenance none(int partitionsReporting, int partitionsExpected, long watermarkMs) {
    return new Provenance(
        new int[0], new long[0], partitionsReporting, partitionsExpected, watermarkMs, -1);
  }

  public Provenance {
    if (sourcePartitions.length != sourceEpochs.length) {
      throw new IllegalArgumentException("one epoch per source partition");
    }
    sourcePartitions = sourcePartitions.clone();
    sourceEpochs = sourceEpochs.clone();
  }

  @Override
  public int[] sourcePartitions() {
    return sourcePartitions.clone();
  }

  @Override
  public long[] sourceEpochs() {
    return sourceEpochs.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Provenance p
        && Arrays.equals(sourcePartitions, p.sourcePartitions)
        && Arrays.equals(sourceEpochs, p.sourceEpochs)
        && partitionsReporting == p.partitionsReporting
        && partitionsExpected == p.partitionsExpected
        && watermarkMs == p.watermarkMs
        && lateEvents == p.lateEvents;
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(sourcePartitions) * 31 + Long.hashCode(watermarkMs);
  }

  @Override
  public String toString() {
    return "Provenance[sources="
        + Arrays.toString(sourcePartitions)
        + ", epochs="
        + Arrays.toString(sourceEpochs)
        + ", reporting="
        + partitionsReporting
        + "/"
        + partitionsExpected
        + ", watermarkMs="
        + watermarkMs
        + ", lateEvents="
        + lateEvents
        + "]";
  }
}

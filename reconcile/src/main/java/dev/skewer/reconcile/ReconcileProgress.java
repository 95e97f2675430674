package dev.skewer.reconcile;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Where a running reconciliation is, reported about once a second while it reads a topic or merges.
 *
 * @param phase what it is doing
 * @param topic the topic being read, or null while merging
 * @param partitions per partition: records read of the records to read (empty while merging)
 * @param done records read (or, while merging, sorted records processed) so far in this phase
 * @param total records to read (or to process) in this phase
 * @param recordsPerSecond the rate since the previous report
 * @param elapsed time since the phase began
 */
public record ReconcileProgress(
    Phase phase,
    String topic,
    List<PartitionProgress> partitions,
    long done,
    long total,
    double recordsPerSecond,
    Duration elapsed) {

  public ReconcileProgress {
    partitions = List.copyOf(partitions);
  }

  /** The phases, in order. */
  public enum Phase {
    /** Reading the late topic and the DLQ into the side index. */
    SIDE_TOPICS,
    /** Reading the results topic. */
    RESULTS,
    /** Reading the input topic. */
    EVENTS,
    /** Merging the sorted records key by key: recomputing and comparing. */
    MERGE
  }

  /**
   * @param partition the partition
   * @param read records read so far
   * @param total records in the partition's offset range
   */
  public record PartitionProgress(int partition, long read, long total) {}

  /** One line for a terminal. */
  public String line() {
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            "%-11s %,d/%,d (%.0f%%) %,.0f rec/s %ds",
            phase.name().toLowerCase(Locale.ROOT),
            done,
            total,
            total == 0 ? 100.0 : 100.0 * done / total,
            recordsPerSecond,
            elapsed.toSeconds()));
    if (topic != null) {
      sb.append("  ").append(topic);
    }
    int shown = 0;
    for (PartitionProgress p : partitions) {
      if (shown++ == 8) {
        sb.append(" …");
        break;
      }
      sb.append(String.format(" p%d %,d/%,d", p.partition(), p.read(), p.total()));
    }
    return sb.toString();
  }
}

package dev.skewer.stage;

/**
 * What a tick tells a task about its partition.
 *
 * @param nowMs the runtime's clock
 * @param silentMs how long the partition has had no records, counting only time in which records
 *     could have arrived: while records wait on the broker (consumer lag), while the broker is
 *     unreachable, while the runtime holds back polling (back-pressure), and across a pause of this
 *     process itself (GC, SIGSTOP), the partition is not silent
 */
public record PartitionActivity(long nowMs, long silentMs) {

  public PartitionActivity {
    if (silentMs < 0) {
      throw new IllegalArgumentException("silentMs must be >= 0, was " + silentMs);
    }
  }
}

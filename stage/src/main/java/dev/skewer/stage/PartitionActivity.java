package dev.skewer.stage;

/**
 * What a tick tells a task about its partition.
 *
 * @param nowMs the runtime's clock
 * @param silentMs how long the partition has had no records, counting only time in which records
 *     could have arrived and been seen: while records wait on the broker (consumer lag) or it is
 *     not known yet whether they do (not fetched since the partition was assigned), while the
 *     broker is unreachable, while the runtime holds back polling (back-pressure), across a pause
 *     of this process itself (GC, SIGSTOP), and since the last poll returned (a poll thread busy
 *     with a command or a rebalance), the partition is not silent
 */
public record PartitionActivity(long nowMs, long silentMs) {

  public PartitionActivity {
    if (silentMs < 0) {
      throw new IllegalArgumentException("silentMs must be >= 0, was " + silentMs);
    }
  }
}

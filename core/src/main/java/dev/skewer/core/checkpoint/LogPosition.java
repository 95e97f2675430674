package dev.skewer.core.checkpoint;

/**
 * Where a record of the checkpoint topic is: a partition and an offset in it.
 *
 * @param partition the partition, >= 0
 * @param offset the offset, >= 0
 */
public record LogPosition(int partition, long offset) {

  public LogPosition {
    if (partition < 0) {
      throw new IllegalArgumentException("partition must be >= 0, was " + partition);
    }
    if (offset < 0) {
      throw new IllegalArgumentException("offset must be >= 0, was " + offset);
    }
  }

  @Override
  public String toString() {
    return partition + "@" + offset;
  }
}

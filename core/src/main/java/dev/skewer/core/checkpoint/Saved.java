package dev.skewer.core.checkpoint;

/**
 * What {@link CheckpointStore#save} did: refused (a newer epoch owns the id), or stored — and, when
 * the store keeps a copy in Kafka, where that copy was written, so that an owner can commit the
 * position with its input offset and a successor can read the checkpoint back when the store has
 * lost it.
 *
 * @param accepted false when refused as stale
 * @param logPartition the copy's partition in the store's topic, or -1 (none, or refused)
 * @param logOffset the copy's offset there, or -1
 */
public record Saved(boolean accepted, int logPartition, long logOffset) {

  /** Refused: a newer epoch owns the id. */
  public static final Saved REFUSED = new Saved(false, -1, -1);

  /** Stored; the store keeps no copy in Kafka. */
  public static final Saved UNLOGGED = new Saved(true, -1, -1);

  /** Stored, with its copy at {@code offset} of {@code partition} of the store's topic. */
  public static Saved logged(int partition, long offset) {
    return new Saved(true, partition, offset);
  }

  /** Whether the position of a copy in Kafka is known. */
  public boolean hasLog() {
    return logPartition >= 0;
  }
}

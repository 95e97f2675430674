package dev.skewer.core.checkpoint;

import java.util.Optional;

/**
 * Where partition owners keep checkpoints and fencing epochs. Ids name a partition of a stage, e.g.
 * {@code node/events/3} or {@code coordinator/skewer.partials/1}. Every method may block: call them
 * off the event loop. Thread-safe.
 */
public interface CheckpointStore extends AutoCloseable {

  /** Increments and returns the fencing epoch of {@code id} (the first call returns 1). */
  long nextEpoch(String id);

  /** The current fencing epoch of {@code id} (0 if never taken). */
  long currentEpoch(String id);

  /** The latest checkpoint of {@code id}, if any. */
  Optional<Checkpoint> load(String id);

  /**
   * Stores a checkpoint unless a newer owner has taken the partition (its epoch is above {@code
   * checkpoint.epoch()}): a paused-then-resumed zombie never overwrites its successor's state.
   *
   * @return false if refused as stale
   */
  boolean save(String id, Checkpoint checkpoint);

  @Override
  default void close() {}
}

package dev.skewer.model;

import dev.skewer.core.checkpoint.Checkpoint;
import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.checkpoint.InMemoryCheckpointStore;
import dev.skewer.core.checkpoint.Saved;
import java.util.Optional;

/**
 * The in-memory checkpoint store, whose next save of a stage's checkpoint can be made to fail (the
 * store unreachable), as {@link Step.FailCheckpoint} asks. Thread-safe.
 */
final class FlakyCheckpointStore implements CheckpointStore {

  private final InMemoryCheckpointStore store = new InMemoryCheckpointStore();
  private String failNext; // id prefix whose next save fails, or null

  /** The next save of a checkpoint whose id starts with {@code idPrefix} throws. */
  synchronized void failNextSave(String idPrefix) {
    failNext = idPrefix;
  }

  /** Withdraws a failure armed by {@link #failNextSave} that has not struck yet. */
  synchronized void withdrawFailures() {
    failNext = null;
  }

  @Override
  public long nextEpoch(String id) {
    return store.nextEpoch(id);
  }

  @Override
  public long currentEpoch(String id) {
    return store.currentEpoch(id);
  }

  @Override
  public Optional<Checkpoint> load(String id) {
    return store.load(id);
  }

  @Override
  public Saved save(String id, Checkpoint checkpoint) {
    synchronized (this) {
      if (failNext != null && id.startsWith(failNext)) {
        failNext = null;
        throw new IllegalStateException("injected: the checkpoint store is unreachable");
      }
    }
    return store.save(id, checkpoint);
  }
}

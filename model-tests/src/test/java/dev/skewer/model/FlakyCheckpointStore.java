package dev.skewer.model;

import dev.skewer.core.checkpoint.Checkpoint;
import dev.skewer.core.checkpoint.InMemoryCheckpointStore;
import dev.skewer.core.checkpoint.Saved;
import dev.skewer.testkit.checkpoint.ForwardingCheckpointStore;

/**
 * The in-memory checkpoint store, whose next save of a stage's checkpoint can be made to fail (the
 * store unreachable), as {@link Step.FailCheckpoint} asks. Thread-safe.
 */
final class FlakyCheckpointStore extends ForwardingCheckpointStore {

  private String failNext; // id prefix whose next save fails, or null

  FlakyCheckpointStore() {
    super(new InMemoryCheckpointStore());
  }

  /** The next save of a checkpoint whose id starts with {@code idPrefix} throws. */
  synchronized void failNextSave(String idPrefix) {
    failNext = idPrefix;
  }

  /** Withdraws a failure armed by {@link #failNextSave} that has not struck yet. */
  synchronized void withdrawFailures() {
    failNext = null;
  }

  @Override
  public Saved save(String id, Checkpoint checkpoint) {
    synchronized (this) {
      if (failNext != null && id.startsWith(failNext)) {
        failNext = null;
        throw new IllegalStateException("injected: the checkpoint store is unreachable");
      }
    }
    return super.save(id, checkpoint);
  }
}

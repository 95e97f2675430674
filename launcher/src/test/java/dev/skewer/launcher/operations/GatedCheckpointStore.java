package dev.skewer.launcher.operations;

import dev.skewer.core.checkpoint.Checkpoint;
import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.checkpoint.Saved;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A real store behind a gate: taking a partition over ({@link #nextEpoch}) waits until {@link
 * #open()}, so a test can hold a process in "assigned but not restored" for as long as it likes.
 */
final class GatedCheckpointStore implements CheckpointStore {

  private final CheckpointStore delegate;
  private final CountDownLatch gate = new CountDownLatch(1);

  GatedCheckpointStore(CheckpointStore delegate) {
    this.delegate = delegate;
  }

  void open() {
    gate.countDown();
  }

  @Override
  public long nextEpoch(String id) {
    try {
      if (!gate.await(5, TimeUnit.MINUTES)) {
        throw new IllegalStateException("gate never opened");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted at the gate", e);
    }
    return delegate.nextEpoch(id);
  }

  @Override
  public long currentEpoch(String id) {
    return delegate.currentEpoch(id);
  }

  @Override
  public Optional<Checkpoint> load(String id) {
    return delegate.load(id);
  }

  @Override
  public Saved save(String id, Checkpoint checkpoint) {
    return delegate.save(id, checkpoint);
  }

  @Override
  public void close() {
    open();
    delegate.close();
  }

  @Override
  public boolean outlivesProcesses() {
    return delegate.outlivesProcesses();
  }
}

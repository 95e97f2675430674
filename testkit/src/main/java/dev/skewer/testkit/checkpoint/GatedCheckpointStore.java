package dev.skewer.testkit.checkpoint;

import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.checkpoint.TakenEpoch;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A real store behind a gate: taking a partition over ({@link #takeEpoch}, {@link #nextEpoch})
 * waits until {@link #open()}, so a test can hold a process in "assigned but not restored" for as
 * long as it likes, or revoke a partition while its take-over is taking an epoch. Only ids the gate
 * was given wait; another process's view of the same store is the delegate itself.
 */
public final class GatedCheckpointStore extends ForwardingCheckpointStore {

  private final Predicate<String> gated;
  private final CountDownLatch gate = new CountDownLatch(1);
  private final CountDownLatch waiting = new CountDownLatch(1);

  /** Every take-over waits at the gate. */
  public GatedCheckpointStore(CheckpointStore delegate) {
    this(delegate, id -> true);
  }

  /** Take-overs of the ids {@code gated} accepts wait at the gate; the others pass. */
  public GatedCheckpointStore(CheckpointStore delegate, Predicate<String> gated) {
    super(delegate);
    this.gated = gated;
  }

  /** Lets every take-over through, now and from now on. */
  public void open() {
    gate.countDown();
  }

  /** Whether a take-over came to the gate within {@code timeout}. */
  public boolean awaitWaiting(Duration timeout) throws InterruptedException {
    return waiting.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public long nextEpoch(String id) {
    pass(id);
    return super.nextEpoch(id);
  }

  @Override
  public TakenEpoch takeEpoch(String id) {
    pass(id);
    return super.takeEpoch(id);
  }

  private void pass(String id) {
    if (gated.test(id)) {
      waiting.countDown();
      try {
        if (!gate.await(5, TimeUnit.MINUTES)) {
          throw new IllegalStateException("gate never opened");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted at the gate", e);
      }
    }
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

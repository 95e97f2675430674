package dev.skewer.core.checkpoint;

import dev.skewer.core.concurrent.Unwrapped;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * An epoch {@link CheckpointStore#takeEpoch} handed out, and when the store's durable copy has it:
 * the store already fences with it (saves of lower epochs are refused), while its record in the
 * store's Kafka topic — what a store reloads its fences from after its whole Hazelcast cluster was
 * lost — may still be on its way. An owner does nothing the epoch must fence (commit, process,
 * write) before {@link #recorded} completes; it can restore its state meanwhile.
 *
 * @param value the epoch
 * @param recorded completes when the epoch's record is durable; fails with the store's error
 */
public record TakenEpoch(long value, CompletableFuture<Void> recorded) {

  /** An epoch a store without a copy elsewhere (or whose copy is already written) handed out. */
  public static TakenEpoch recorded(long value) {
    return new TakenEpoch(value, CompletableFuture.completedFuture(null));
  }

  /** This epoch, recorded once {@code earlier}'s record is too (epochs taken one after another). */
  public TakenEpoch after(TakenEpoch earlier) {
    return new TakenEpoch(value, CompletableFuture.allOf(earlier.recorded, recorded));
  }

  /**
   * Waits for the record and returns the epoch. Blocking.
   *
   * @throws RuntimeException the store's error writing the record
   */
  public long awaitRecorded() {
    try {
      recorded.get();
      return value;
    } catch (ExecutionException e) {
      throw Unwrapped.cause(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for epoch " + value + "'s record", e);
    }
  }
}

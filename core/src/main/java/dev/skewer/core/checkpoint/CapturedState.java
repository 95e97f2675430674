package dev.skewer.core.checkpoint;

/**
 * A stage's state for a checkpoint, captured on the thread that owns the state and encoded later on
 * another: the capture copies what is cheap to copy and can change meanwhile (watermarks,
 * counters), and keeps references to the bulk (the aggregates), which its owner promises not to
 * change until {@link #encode} has returned. The promise is the caller's: the stage runtime calls
 * nothing of a task whose state is being encoded (its records wait), so a snapshot of a million
 * keys never blocks the event loop that runs the task.
 */
@FunctionalInterface
public interface CapturedState {

  /** The encoded state, as of the capture. Called once, on any thread. */
  byte[] encode();

  /** A state that is already encoded. */
  static CapturedState of(byte[] encoded) {
    return () -> encoded;
  }
}

package dev.skewer.coordinator.merge;

import dev.skewer.core.wire.Partial;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * The merging of one window shape composed from slices (hopping windows, sessions) behind {@link
 * WindowMerger}; the merger owns epochs, watermarks and counters.
 */
interface SliceMerge {

  /** What became of a Partial. */
  enum Outcome {
    /** Held, and its content changed what the merger holds. */
    CHANGED,
    /** Held, same content as before. */
    UNCHANGED,
    /** Older than the Partial held for its source. */
    STALE,
    /** For results already dropped after allowed lateness. */
    LATE,
    /** Of another window shape or slice length than this merger's. */
    MISMATCHED
  }

  Outcome accept(Partial p, int sourcePartitions);

  /**
   * Emits finals of the results ending at or before {@code closeMs} and revisions of closed ones,
   * then drops what the lateness watermark {@code latenessMs} has put past allowed lateness.
   */
  int advance(long closeMs, long latenessMs, ResultSink sink);

  long heldPartials();

  /** Windows (hopping) or keys with open sessions (session) held. */
  int openWindows();

  void writeTo(DataOutputStream out) throws IOException;
}

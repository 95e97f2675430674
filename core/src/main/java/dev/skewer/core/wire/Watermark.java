package dev.skewer.core.wire;

/**
 * The event-time progress of one source partition, broadcast to every partials partition after the
 * Partials it covers.
 *
 * @param sourcePartition the events partition, >= 0
 * @param epoch the fencing epoch of the sending node, >= 0
 * @param watermarkMs the source's lateness watermark: it will send nothing more for a result whose
 *     end + allowed lateness is at or before this time (the larger of its own watermark, max event
 *     time − delay, and the frontier it adopted from the coordinators); {@code Long.MIN_VALUE}
 *     before the first event
 * @param idle true when the source partition has had no events for {@code watermark.idle} (and has
 *     sent its open slices): it does not hold the global watermark back
 * @param closeMs at or after {@code watermarkMs}: results ending at or before it may be emitted
 *     (end of input after {@code watermark.finalizeAfterIdle} moves it past the open slices without
 *     making later events late)
 * @param seq the position of this message among those its source partition sent, in this epoch, to
 *     this partials partition; -1 when unknown (format 2 and older)
 * @param finalized true when the idle source has also reached end of input ({@code
 *     watermark.finalizeAfterIdle}): when every source is finalized, everything any of them
 *     announced may close
 */
public record Watermark(
    int sourcePartition,
    long epoch,
    long watermarkMs,
    boolean idle,
    long closeMs,
    long seq,
    boolean finalized)
    implements PartialsMessage {

  public Watermark {
    if (sourcePartition < 0) {
      throw new IllegalArgumentException("sourcePartition must be >= 0, was " + sourcePartition);
    }
    if (epoch < 0) {
      throw new IllegalArgumentException("epoch must be >= 0, was " + epoch);
    }
    if (closeMs < watermarkMs) {
      throw new IllegalArgumentException(
          "closeMs must be >= watermarkMs (" + watermarkMs + "), was " + closeMs);
    }
    if (seq < -1) {
      throw new IllegalArgumentException("seq must be >= -1, was " + seq);
    }
    if (finalized && !idle) {
      throw new IllegalArgumentException("a finalized source is idle");
    }
  }

  /** A watermark of a source that has not reached end of input. */
  public Watermark(
      int sourcePartition, long epoch, long watermarkMs, boolean idle, long closeMs, long seq) {
    this(sourcePartition, epoch, watermarkMs, idle, closeMs, seq, false);
  }

  /** A watermark that closes what it makes late, not yet numbered. */
  public Watermark(int sourcePartition, long epoch, long watermarkMs, boolean idle) {
    this(sourcePartition, epoch, watermarkMs, idle, watermarkMs, -1);
  }

  /** This watermark numbered {@code seq} among its source's messages to its partials partition. */
  public Watermark withSeq(long seq) {
    return new Watermark(sourcePartition, epoch, watermarkMs, idle, closeMs, seq, finalized);
  }
}

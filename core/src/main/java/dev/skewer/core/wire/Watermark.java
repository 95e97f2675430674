package dev.skewer.core.wire;

/**
 * The event-time progress of one source partition, broadcast to every partials partition after the
 * Partials it covers.
 *
 * @param sourcePartition the events partition, >= 0
 * @param epoch the fencing epoch of the sending node, >= 0
 * @param watermarkMs no later event of this source partition is expected at or before this time
 *     ({@code Long.MIN_VALUE} before the first event)
 * @param idle true when the source partition has had no events for {@code watermark.idle}: it does
 *     not hold the global watermark back
 */
public record Watermark(int sourcePartition, long epoch, long watermarkMs, boolean idle)
    implements PartialsMessage {

  public Watermark {
    if (sourcePartition < 0) {
      throw new IllegalArgumentException("sourcePartition must be >= 0, was " + sourcePartition);
    }
    if (epoch < 0) {
      throw new IllegalArgumentException("epoch must be >= 0, was " + epoch);
    }
  }
}

package dev.skewer.core.frontier;

/**
 * Where coordinators publish the global watermark of each partials partition and nodes read the
 * frontier. Values only grow: a publication lower than the one held is ignored. Thread-safe;
 * methods may block (call them off the event loop).
 */
public interface Frontier extends AutoCloseable {

  /** Publishes the global (lateness) watermark of one partials partition. */
  void publish(int partialsPartition, long globalWatermarkMs);

  /**
   * The frontier: the minimum of the published watermarks over partials partitions {@code 0 ..
   * partialsPartitions - 1}, or {@link Long#MIN_VALUE} while any of them has published nothing.
   */
  long frontierMs(int partialsPartitions);

  @Override
  default void close() {}

  /** No exchange: the frontier is never known (each partition judges by its own watermark). */
  static Frontier none() {
    return new Frontier() {
      @Override
      public void publish(int partialsPartition, long globalWatermarkMs) {}

      @Override
      public long frontierMs(int partialsPartitions) {
        return Long.MIN_VALUE;
      }
    };
  }
}

package dev.skewer.coordinator.topk;

import java.util.List;
import java.util.Optional;

/**
 * Where each coordinator partition publishes its per-window top-K lists and where the HTTP API
 * reads them back merged. Implementations may block: call them off the event loop.
 */
public interface TopKStore {

  /** Publishes partition {@code partition}'s top list of a window (replacing an earlier one). */
  void publish(int partition, long windowStartMs, long windowEndMs, List<TopKEntry> top);

  /** The most recent window any partition has published, if any. */
  Optional<Long> latestWindowStartMs();

  /** The top {@code k} keys of a window merged over {@code partitions} partitions. */
  Optional<TopKView> read(long windowStartMs, int k, int partitions);
}

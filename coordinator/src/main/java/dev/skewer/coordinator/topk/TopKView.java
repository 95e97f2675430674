package dev.skewer.coordinator.topk;

import java.util.List;

/**
 * The top keys of one window merged across coordinator partitions.
 *
 * @param windowStartMs the window's start
 * @param windowEndMs the window's end
 * @param partitionsReporting how many partials partitions have published this window
 * @param partitions how many partials partitions exist
 * @param keys the top keys, largest count first
 */
public record TopKView(
    long windowStartMs,
    long windowEndMs,
    int partitionsReporting,
    int partitions,
    List<TopKEntry> keys) {

  public TopKView {
    keys = List.copyOf(keys);
  }
}

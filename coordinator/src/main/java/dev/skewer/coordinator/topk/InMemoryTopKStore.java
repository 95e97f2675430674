package dev.skewer.coordinator.topk;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/** A {@link TopKStore} inside one JVM (single coordinator, benchmarks, tests). Thread-safe. */
public final class InMemoryTopKStore implements TopKStore {

  private final ConcurrentSkipListMap<Long, Map<Integer, List<TopKEntry>>> byWindow =
      new ConcurrentSkipListMap<>();
  private final Map<Long, Long> ends = new ConcurrentHashMap<>();
  private final int maxWindows;

  public InMemoryTopKStore(int maxWindows) {
    this.maxWindows = maxWindows;
  }

  @Override
  public void publish(int partition, long windowStartMs, long windowEndMs, List<TopKEntry> top) {
    byWindow
        .computeIfAbsent(windowStartMs, w -> new ConcurrentHashMap<>())
        .put(partition, List.copyOf(top));
    ends.put(windowStartMs, windowEndMs);
    while (byWindow.size() > maxWindows) {
      Map.Entry<Long, ?> oldest = byWindow.pollFirstEntry();
      if (oldest != null) {
        ends.remove(oldest.getKey());
      }
    }
  }

  @Override
  public Optional<Long> latestWindowStartMs() {
    return byWindow.isEmpty() ? Optional.empty() : Optional.of(byWindow.lastKey());
  }

  @Override
  public Optional<TopKView> read(long windowStartMs, int k, int partitions) {
    Map<Integer, List<TopKEntry>> lists = byWindow.get(windowStartMs);
    if (lists == null) {
      return Optional.empty();
    }
    List<List<TopKEntry>> all = new ArrayList<>(lists.values());
    return Optional.of(
        new TopKView(
            windowStartMs,
            ends.getOrDefault(windowStartMs, -1L),
            lists.size(),
            partitions,
            WindowTopK.mergeTop(all, k)));
  }
}

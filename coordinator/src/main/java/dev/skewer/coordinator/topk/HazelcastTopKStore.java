package dev.skewer.coordinator.topk;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.skewer.core.job.JobNames;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A {@link TopKStore} in two of the job's Hazelcast IMaps: {@code skewer.<job>.topk} holds one
 * encoded list per (window, partials partition), {@code skewer.<job>.topk.windows} the end of every
 * published window (see {@link JobNames}). Entries expire after {@code ttlSeconds}, which bounds
 * the memory of the index.
 */
public final class HazelcastTopKStore implements TopKStore {

  private final IMap<String, String> lists;
  private final IMap<Long, Long> windows;
  private final long ttlSeconds;

  public HazelcastTopKStore(HazelcastInstance hazelcast, JobNames names, long ttlSeconds) {
    this.lists = hazelcast.getMap(names.topKListsMap());
    this.windows = hazelcast.getMap(names.topKWindowsMap());
    this.ttlSeconds = ttlSeconds;
  }

  private static String listKey(long windowStartMs, int partition) {
    return windowStartMs + "/" + partition;
  }

  @Override
  public void publish(int partition, long windowStartMs, long windowEndMs, List<TopKEntry> top) {
    lists.set(
        listKey(windowStartMs, partition),
        TopKCodec.encode(windowEndMs, top),
        ttlSeconds,
        TimeUnit.SECONDS);
    windows.set(windowStartMs, windowEndMs, ttlSeconds, TimeUnit.SECONDS);
  }

  @Override
  public Optional<Long> latestWindowStartMs() {
    long latest = Long.MIN_VALUE;
    for (Long start : windows.keySet()) {
      latest = Math.max(latest, start);
    }
    return latest == Long.MIN_VALUE ? Optional.empty() : Optional.of(latest);
  }

  @Override
  public Optional<TopKView> read(long windowStartMs, int k, int partitions) {
    Set<String> keys = new HashSet<>();
    for (int q = 0; q < partitions; q++) {
      keys.add(listKey(windowStartMs, q));
    }
    Map<String, String> found = lists.getAll(keys);
    if (found.isEmpty()) {
      return Optional.empty();
    }
    List<List<TopKEntry>> all = new ArrayList<>();
    long endMs = -1;
    for (String encoded : found.values()) {
      TopKCodec.Decoded d = TopKCodec.decode(encoded);
      endMs = d.windowEndMs();
      all.add(d.entries());
    }
    return Optional.of(
        new TopKView(windowStartMs, endMs, found.size(), partitions, WindowTopK.mergeTop(all, k)));
  }
}

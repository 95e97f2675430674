package dev.skewer.core.frontier;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** A {@link Frontier} inside one JVM (tests, single-process clusters without Hazelcast). */
public final class InMemoryFrontier implements Frontier {

  private final Map<Integer, Long> byPartition = new ConcurrentHashMap<>();

  @Override
  public void publish(int partialsPartition, long globalWatermarkMs) {
    byPartition.merge(partialsPartition, globalWatermarkMs, Math::max);
  }

  @Override
  public long frontierMs(int partialsPartitions) {
    long min = Long.MAX_VALUE;
    for (int q = 0; q < partialsPartitions; q++) {
      Long v = byPartition.get(q);
      if (v == null) {
        return Long.MIN_VALUE;
      }
      min = Math.min(min, v);
    }
    return partialsPartitions == 0 ? Long.MIN_VALUE : min;
  }
}

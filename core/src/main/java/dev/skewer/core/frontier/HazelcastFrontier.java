package dev.skewer.core.frontier;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.skewer.core.job.JobNames;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * A {@link Frontier} in a Hazelcast IMap (partials partition → watermark, backup count as
 * configured for the map). Publications only raise a value (an entry processor compares and sets
 * atomically on the owning member).
 */
public final class HazelcastFrontier implements Frontier {

  private final IMap<Integer, Long> map;

  /**
   * @param mapName the map, named after the job so two jobs never share a frontier
   */
  public HazelcastFrontier(HazelcastInstance hazelcast, String mapName) {
    this.map = hazelcast.getMap(mapName);
  }

  /** The frontier of job {@code job}: map {@link JobNames#frontierMap()}. */
  public static HazelcastFrontier forJob(HazelcastInstance hazelcast, JobNames job) {
    return new HazelcastFrontier(hazelcast, job.frontierMap());
  }

  @Override
  public void publish(int partialsPartition, long globalWatermarkMs) {
    map.executeOnKey(
        partialsPartition,
        entry -> {
          Long held = entry.getValue();
          if (held == null || globalWatermarkMs > held) {
            entry.setValue(globalWatermarkMs);
          }
          return null;
        });
  }

  @Override
  public long frontierMs(int partialsPartitions) {
    if (partialsPartitions <= 0) {
      return Long.MIN_VALUE;
    }
    Set<Integer> keys = new HashSet<>();
    for (int q = 0; q < partialsPartitions; q++) {
      keys.add(q);
    }
    Map<Integer, Long> values = map.getAll(keys);
    if (values.size() < partialsPartitions) {
      return Long.MIN_VALUE;
    }
    long min = Long.MAX_VALUE;
    for (Long v : values.values()) {
      min = Math.min(min, v);
    }
    return min;
  }
}

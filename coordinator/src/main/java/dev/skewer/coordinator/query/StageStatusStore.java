package dev.skewer.coordinator.query;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import java.time.Clock;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Where coordinators publish their partitions' {@link StageStatus} and read everyone's. Entries
 * expire after {@link #TTL_SECONDS}, so a partition whose owner died disappears until its next
 * owner publishes. Implementations may block: call them off the event loop.
 */
public interface StageStatusStore {

  int TTL_SECONDS = 10;

  /** Publishes (replaces) the given partitions' status. */
  void publish(Collection<StageStatus> statuses);

  /** The freshest status of every partition that has one, by partition. */
  Map<Integer, StageStatus> all();

  /** A store in the Hazelcast map {@code mapName}: one write per partition a second. */
  static StageStatusStore hazelcast(HazelcastInstance hazelcast, String mapName) {
    IMap<Integer, String> map = hazelcast.getMap(mapName);
    return new StageStatusStore() {
      @Override
      public void publish(Collection<StageStatus> statuses) {
        for (StageStatus s : statuses) {
          map.set(s.partition(), s.encode(), TTL_SECONDS, TimeUnit.SECONDS);
        }
      }

      @Override
      public Map<Integer, StageStatus> all() {
        Map<Integer, StageStatus> out = new TreeMap<>();
        for (Map.Entry<Integer, String> e : map.entrySet()) {
          try {
            out.put(e.getKey(), StageStatus.decode(e.getValue()));
          } catch (IllegalArgumentException malformed) {
            // a newer coordinator's format: leave the partition out
          }
        }
        return out;
      }
    };
  }

  /** A store inside this JVM (a coordinator without Hazelcast), with the same expiry. */
  static StageStatusStore inMemory(Clock clock) {
    Map<Integer, StageStatus> map = new ConcurrentHashMap<>();
    return new StageStatusStore() {
      @Override
      public void publish(Collection<StageStatus> statuses) {
        statuses.forEach(s -> map.put(s.partition(), s));
      }

      @Override
      public Map<Integer, StageStatus> all() {
        long now = clock.millis();
        Map<Integer, StageStatus> out = new TreeMap<>();
        map.forEach(
            (q, s) -> {
              if (now - s.atMs() <= TTL_SECONDS * 1000L) {
                out.put(q, s);
              }
            });
        return out;
      }
    };
  }
}

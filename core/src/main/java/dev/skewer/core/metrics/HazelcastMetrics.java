package dev.skewer.core.metrics;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.skewer.core.job.JobNames;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.List;

/**
 * Hazelcast meters of one member: how many members its cluster has ({@value #MEMBERS}) and, per map
 * of the job, the entries this member owns ({@value #MAP_OWNED_ENTRIES}, tag {@code map}; summed
 * over the members it is the map's size, without the cost of a cluster-wide {@code size()} on every
 * scrape).
 */
public final class HazelcastMetrics {

  /** Members of the cluster as this member sees it. */
  public static final String MEMBERS = "skewer.hazelcast.members";

  /** Entries of a map owned by this member (primary copies; backups excluded). */
  public static final String MAP_OWNED_ENTRIES = "skewer.hazelcast.map.owned.entries";

  private HazelcastMetrics() {}

  /**
   * Registers the gauges for {@code hazelcast} and every map of the job {@code names}; blocking
   * (creates the map proxies): call it off the event loop.
   *
   * @param tags e.g. {@code node=node-1}
   */
  public static void bind(
      MeterRegistry registry, HazelcastInstance hazelcast, JobNames names, Tags tags) {
    Gauge.builder(MEMBERS, hazelcast, h -> h.getCluster().getMembers().size())
        .description("Hazelcast members in this member's cluster")
        .tags(tags)
        .register(registry);
    for (String name :
        List.of(
            names.checkpointsMap(),
            names.checkpointChunksMap(),
            names.epochsMap(),
            names.hotKeysMap(),
            names.hotKeyReportsMap())) {
      IMap<?, ?> map = hazelcast.getMap(name);
      Gauge.builder(MAP_OWNED_ENTRIES, map, m -> m.getLocalMapStats().getOwnedEntryCount())
          .description("Entries of a Hazelcast map owned by this member")
          .tags(tags)
          .tag("map", name)
          .register(registry);
    }
  }
}

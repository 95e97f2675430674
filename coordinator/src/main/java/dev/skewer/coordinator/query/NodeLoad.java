package dev.skewer.coordinator.query;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.core.hotkey.HotKeyReport;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Events per second per node and per source partition, from what the nodes already publish: each
 * node reports every owned partition's event rate once a second (Hazelcast map {@value
 * HotKeyReport#MAP_NAME}, expiring after 10 s), and the nodes' consumer group says which node owns
 * which partition (asked of the broker at most every {@value #GROUP_REFRESH_MS} ms). Blocking: call
 * off the event loop. Thread-safe.
 */
public final class NodeLoad {

  private static final Logger LOG = LoggerFactory.getLogger(NodeLoad.class);
  static final long GROUP_REFRESH_MS = 5_000;

  private final HazelcastInstance hazelcast; // null: no reports
  private final String reportsMap;
  private final Supplier<Admin> admin;
  private final String nodeGroup;
  private final String eventsTopic;
  private final Clock clock;
  private Map<Integer, String> owners = Map.of();
  private long ownersAtMs = Long.MIN_VALUE;

  /**
   * @param reportsMap the job's Hazelcast map of the nodes' hot-key reports
   * @param admin gives the admin client (created lazily, owned by the caller)
   * @param nodeGroup the nodes' consumer group
   */
  public NodeLoad(
      HazelcastInstance hazelcast,
      String reportsMap,
      Supplier<Admin> admin,
      String nodeGroup,
      String eventsTopic,
      Clock clock) {
    this.hazelcast = hazelcast;
    this.reportsMap = reportsMap;
    this.admin = admin;
    this.nodeGroup = nodeGroup;
    this.eventsTopic = eventsTopic;
    this.clock = clock;
  }

  /**
   * One source partition's load.
   *
   * @param partition the events partition
   * @param node the node that owns it ("unassigned" when none does)
   * @param eventsPerSecond the node's measured rate
   * @param atMs when the node measured it
   */
  public record PartitionLoad(int partition, String node, double eventsPerSecond, long atMs) {}

  /** Every reporting partition's load, by partition. */
  public synchronized List<PartitionLoad> partitions() {
    if (hazelcast == null) {
      return List.of();
    }
    Map<Integer, String> who = owners();
    List<PartitionLoad> out = new ArrayList<>();
    for (HotKeyReport r :
        HotKeyReport.decodeAll(hazelcast.<String, byte[]>getMap(reportsMap).values())) {
      out.add(
          new PartitionLoad(
              r.partition(),
              who.getOrDefault(r.partition(), "unassigned"),
              r.eventsPerSecond(),
              r.atMs()));
    }
    out.sort(Comparator.comparingInt(PartitionLoad::partition));
    return out;
  }

  /** Events per second per node (sum of its partitions), by node name. */
  public static Map<String, Double> perNode(List<PartitionLoad> partitions) {
    Map<String, Double> out = new TreeMap<>();
    for (PartitionLoad p : partitions) {
      out.merge(p.node(), p.eventsPerSecond(), Double::sum);
    }
    return out;
  }

  private Map<Integer, String> owners() {
    long now = clock.millis();
    if (ownersAtMs != Long.MIN_VALUE && now - ownersAtMs < GROUP_REFRESH_MS) {
      return owners;
    }
    ownersAtMs = now;
    try {
      ConsumerGroupDescription group =
          admin
              .get()
              .describeConsumerGroups(List.of(nodeGroup))
              .describedGroups()
              .get(nodeGroup)
              .get(5, TimeUnit.SECONDS);
      Map<Integer, String> found = new HashMap<>();
      for (MemberDescription m : group.members()) {
        Set<TopicPartition> tps = m.assignment().topicPartitions();
        for (TopicPartition tp : tps) {
          if (tp.topic().equals(eventsTopic)) {
            found.put(tp.partition(), nodeName(m.clientId()));
          }
        }
      }
      owners = Map.copyOf(found);
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      LOG.debug("cannot describe consumer group {}", nodeGroup, e);
    }
    return owners;
  }

  /** {@code skewer-<node>-events} (the node's consumer client id) → {@code <node>}. */
  static String nodeName(String clientId) {
    if (clientId.startsWith("skewer-") && clientId.endsWith("-events") && clientId.length() > 14) {
      return clientId.substring(7, clientId.length() - 7);
    }
    return clientId;
  }
}

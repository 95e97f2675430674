package dev.skewer.benchmarks.deployed;

import dev.skewer.core.job.JobNames;
import dev.skewer.core.job.JobSpec;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.GroupState;

/**
 * The nodes' consumer group on a job's events topic as the broker describes it: whether it has
 * settled and which events partitions each node process was assigned (a node's consumer has the
 * client id {@code skewer-<node id>-events}).
 *
 * <p>Blocking (admin calls, 10 s timeout each); not thread-safe.
 */
final class NodeGroup {

  private final Admin admin;
  private final String group;
  private final int partitions;

  NodeGroup(Admin admin, JobSpec job) {
    this.admin = admin;
    this.group = JobNames.of(job).nodesGroup();
    this.partitions = job.topics().eventsPartitions();
  }

  /** The client id of node {@code nodeId}'s events consumer. */
  static String clientId(String nodeId) {
    return "skewer-" + nodeId + "-events";
  }

  ConsumerGroupDescription describe() throws Exception {
    return admin
        .describeConsumerGroups(List.of(group))
        .describedGroups()
        .get(group)
        .get(10, TimeUnit.SECONDS);
  }

  /**
   * Whether the group is stable with {@code members} members and every events partition assigned;
   * false when it cannot be described.
   */
  boolean settled(int members) {
    try {
      ConsumerGroupDescription d = describe();
      if (d.groupState() != GroupState.STABLE || d.members().size() != members) {
        return false;
      }
      Set<Integer> assigned = new TreeSet<>();
      for (MemberDescription m : d.members()) {
        m.assignment().topicPartitions().forEach(tp -> assigned.add(tp.partition()));
      }
      return assigned.size() == partitions;
    } catch (Exception e) {
      return false;
    }
  }

  /** Client id → the events partitions assigned to it, for every member. */
  Map<String, Set<Integer>> assignment() throws Exception {
    Map<String, Set<Integer>> byClient = new TreeMap<>();
    for (MemberDescription m : describe().members()) {
      Set<Integer> ps = byClient.computeIfAbsent(m.clientId(), c -> new TreeSet<>());
      m.assignment().topicPartitions().forEach(tp -> ps.add(tp.partition()));
    }
    return byClient;
  }

  /** The events partitions assigned to node {@code nodeId}; empty when it is not a member. */
  Set<Integer> partitionsOf(String nodeId) throws Exception {
    return assignment().getOrDefault(clientId(nodeId), Set.of());
  }
}

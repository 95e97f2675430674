package dev.skewer.core.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import dev.skewer.core.net.FreePorts;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which departed member's consumer-group membership a process removes, on real members. */
class DeadMemberEvictionTest {

  @Test
  void shouldRemoveOnlyADepartedProcessOfTheSameRoleAndJobByItsNameAndUuid() throws IOException {
    // given four real members: two nodes of job a, a coordinator of job a, a node of job b
    List<Integer> ports =
        List.of(FreePorts.next(), FreePorts.next(), FreePorts.next(), FreePorts.next());
    List<String> addresses = ports.stream().map(p -> "127.0.0.1:" + p).toList();
    String cluster = "eviction-test-" + ports.get(0);
    List<HazelcastInstance> started = new ArrayList<>();
    try {
      String[][] members = {
        {"node-1", "node", "a"},
        {"node-2", "node", "a"},
        {"coordinator-1", "coordinator", "a"},
        {"node 9/ü", "node", "b"}
      };
      for (int i = 0; i < members.length; i++) {
        started.add(
            HazelcastMembers.start(
                ClusterSettings.loopback(cluster, ports.get(i), addresses),
                members[i][0],
                members[i][1],
                members[i][2]));
      }
      Set<Member> all = started.get(0).getCluster().getMembers();
      assertThat(all).hasSize(4);
      Member node2 = member(all, "node-2");
      Member coordinator = member(all, "coordinator-1");
      Member otherJob = member(all, "node 9/ü");

      // then: node-2 leaving is removed from job a's node group, by its name and member UUID
      assertThat(DeadMemberEviction.instanceToRemove(node2, "node", "a"))
          .contains("node-2." + node2.getUuid());
      assertThat(DeadMemberEviction.groupInstanceId(node2)).isEqualTo("node-2." + node2.getUuid());
      // not by a coordinator's process, nor a node of another job
      assertThat(DeadMemberEviction.instanceToRemove(node2, "coordinator", "a")).isEmpty();
      assertThat(DeadMemberEviction.instanceToRemove(node2, "node", "b")).isEmpty();
      // a departed coordinator or other job's node is not a node of job a
      assertThat(DeadMemberEviction.instanceToRemove(coordinator, "node", "a")).isEmpty();
      assertThat(DeadMemberEviction.instanceToRemove(otherJob, "node", "a")).isEmpty();
      // a name with characters Kafka refuses in an id is made safe
      assertThat(DeadMemberEviction.groupInstanceId(otherJob))
          .isEqualTo("node_9__." + otherJob.getUuid())
          .matches("[A-Za-z0-9._-]+");
      // every member's id differs, also between members of one name (the UUID is per start)
      assertThat(all.stream().map(DeadMemberEviction::groupInstanceId).distinct()).hasSize(4);
    } finally {
      started.forEach(h -> h.getLifecycleService().terminate());
    }
  }

  private static Member member(Set<Member> members, String name) {
    return members.stream()
        .filter(m -> name.equals(m.getAttribute(HazelcastMembers.NAME_ATTRIBUTE)))
        .findFirst()
        .orElseThrow();
  }
}

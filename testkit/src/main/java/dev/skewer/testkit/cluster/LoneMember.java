package dev.skewer.testkit.cluster;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.core.cluster.ClusterSettings;
import dev.skewer.core.cluster.HazelcastMembers;
import dev.skewer.core.net.FreePorts;
import java.util.List;

/** A real Hazelcast member alone in a cluster of its own, on a free loopback port. */
public final class LoneMember {

  private LoneMember() {}

  /**
   * Starts a member named {@code name} with {@code role}, in the cluster {@code
   * <clusterPrefix>-<port>}; the caller terminates it.
   */
  public static HazelcastInstance start(String clusterPrefix, String name, String role) {
    int port = FreePorts.next();
    return HazelcastMembers.start(
        ClusterSettings.loopback(clusterPrefix + "-" + port, port, List.of("127.0.0.1:" + port)),
        name,
        role);
  }
}

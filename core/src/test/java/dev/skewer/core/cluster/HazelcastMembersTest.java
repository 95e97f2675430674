package dev.skewer.core.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.hazelcast.cluster.Member;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.IMap;
import dev.skewer.core.net.FreePorts;
import java.io.IOException;
import java.io.Serializable;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class HazelcastMembersTest {

  /** Two real members on loopback that list each other, started in turn; close ends both. */
  private record TwoMembers(HazelcastInstance first, HazelcastInstance second)
      implements AutoCloseable {

    static TwoMembers start(String name1, String role1, String name2, String role2)
        throws IOException {
      int p1 = FreePorts.next();
      int p2 = FreePorts.next();
      List<String> members = List.of("127.0.0.1:" + p1, "127.0.0.1:" + p2);
      String cluster = "skewer-test-" + p1;
      HazelcastInstance first =
          HazelcastMembers.start(ClusterSettings.loopback(cluster, p1, members), name1, role1);
      try {
        return new TwoMembers(
            first,
            HazelcastMembers.start(ClusterSettings.loopback(cluster, p2, members), name2, role2));
      } catch (RuntimeException | Error e) {
        first.getLifecycleService().terminate();
        throw e;
      }
    }

    @Override
    public void close() {
      second.getLifecycleService().terminate();
      first.getLifecycleService().terminate();
    }
  }

  @Test
  void shouldFormAClusterOfTwoWhenBothMembersListEachOther() throws IOException {
    // when
    try (TwoMembers two = TwoMembers.start("node-1", "node", "coordinator-1", "coordinator")) {
      HazelcastInstance node = two.first();
      HazelcastInstance coordinator = two.second();

      // then: start returns after the join, so both see each other at once
      assertThat(node.getCluster().getMembers()).hasSize(2);
      assertThat(
              coordinator.getCluster().getMembers().stream()
                  .map(
                      m ->
                          m.getAttribute(HazelcastMembers.ROLE_ATTRIBUTE)
                              + "/"
                              + m.getAttribute(HazelcastMembers.NAME_ATTRIBUTE))
                  .collect(Collectors.toSet()))
          .containsExactlyInAnyOrder("node/node-1", "coordinator/coordinator-1");
      Member local = node.getCluster().getLocalMember();
      assertThat(local.getAddress().getPort())
          .isEqualTo(node.getConfig().getNetworkConfig().getPort());

      // and with Hazelcast's metrics collection off, each member's map statistics (what the
      // skewer.hazelcast.map.owned.entries gauges read) still count the entries it owns
      assertThat(node.getConfig().getMetricsConfig().isEnabled()).isFalse();
      for (int i = 0; i < 20; i++) {
        node.getMap("skewer.j.epochs").set("id-" + i, (long) i);
      }
      // once the partitions have moved to the member that joined (until then an entry may be
      // counted by the member it leaves and the one it joins)
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(
                          node.getMap("skewer.j.epochs").getLocalMapStats().getOwnedEntryCount()
                              + coordinator
                                  .getMap("skewer.j.epochs")
                                  .getLocalMapStats()
                                  .getOwnedEntryCount())
                      .isEqualTo(20));
    }
  }

  /** Counted down by {@link SlowBackup} once it runs on the backup member. */
  private static final CountDownLatch BACKUP_STARTED = new CountDownLatch(1);

  /** Held by {@link SlowBackup} on the backup member until the test lets it go. */
  private static final CountDownLatch BACKUP_MAY_FINISH = new CountDownLatch(1);

  /** Sets the entry to 7 on the primary; on the backup, only once {@link #BACKUP_MAY_FINISH}. */
  private static final class SetsSevenSlowBackup
      implements EntryProcessor<String, Long, Long>, Serializable {
    @Override
    public Long process(Map.Entry<String, Long> entry) {
      entry.setValue(7L);
      return 7L;
    }

    @Override
    public EntryProcessor<String, Long, Long> getBackupProcessor() {
      return new SlowBackup();
    }
  }

  /** The backup of {@link SetsSevenSlowBackup}: blocks its partition thread until released. */
  private static final class SlowBackup
      implements EntryProcessor<String, Long, Long>, Serializable {
    @Override
    public Long process(Map.Entry<String, Long> entry) {
      BACKUP_STARTED.countDown();
      try {
        BACKUP_MAY_FINISH.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      entry.setValue(7L);
      return null;
    }
  }

  @Test
  void shouldNotHoldACallLongerThanTheBackupTimeoutWhenItsBackupIsNotAcknowledged()
      throws Exception {
    // given two members, and a key the first one owns once the partitions have settled
    try (TwoMembers two = TwoMembers.start("node-1", "node", "node-2", "node")) {
      try {
        callReturnsWhileItsBackupIsHeld(two.first(), two.second());
      } finally {
        // before the members close: the held backup blocks a partition thread of the second
        BACKUP_MAY_FINISH.countDown();
      }
    }
  }

  private static void callReturnsWhileItsBackupIsHeld(
      HazelcastInstance first, HazelcastInstance second) throws Exception {
    // (asking for an owner makes the first member, the master, lay out the partition table; until
    // then isClusterSafe holds trivially, and a backup that reaches the second member before the
    // table does is dropped, which would leave nothing held and the copy to anti-entropy)
    Member firstMember = first.getCluster().getLocalMember();
    String key =
        IntStream.range(0, 1_000)
            .mapToObj(i -> "id-" + i)
            .filter(k -> first.getPartitionService().getPartition(k).getOwner().equals(firstMember))
            .findFirst()
            .orElseThrow();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                first.getPartitionService().isClusterSafe()
                    && firstMember.equals(second.getPartitionService().getPartition(key).getOwner())
                    && firstMember.equals(
                        first.getPartitionService().getPartition(key).getOwner()));
    IMap<String, Long> map = first.getMap("skewer.j.epochs");

    // when its backup is held on the other member (as a member that has just joined drops one,
    // never acknowledging it)
    CompletableFuture<Long> call =
        map.submitToKey(key, new SetsSevenSlowBackup()).toCompletableFuture();

    // then the call returns without the acknowledgement, well before Hazelcast's default 5 s
    // (which could not return before 5 s had passed), while the backup is still held
    assertThat(call.get(4_500, TimeUnit.MILLISECONDS)).isEqualTo(7L);
    assertThat(BACKUP_STARTED.await(30, TimeUnit.SECONDS))
        .as("the backup ran and is held")
        .isTrue();
    assertThat(BACKUP_MAY_FINISH.getCount()).isEqualTo(1);

    // and once the backup is applied, the other member has the value when the first one dies
    BACKUP_MAY_FINISH.countDown();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> second.getMap("skewer.j.epochs").getLocalMapStats().getBackupEntryCount() == 1);
    first.getLifecycleService().terminate();
    assertThat(second.<String, Long>getMap("skewer.j.epochs").get(key)).isEqualTo(7L);
  }

  @Test
  void shouldConfigureKubernetesDiscoveryWithoutStartingAMember() {
    Config config =
        HazelcastMembers.config(
            new ClusterSettings(
                "skewer-j",
                "0.0.0.0",
                "10.1.2.3",
                5801,
                List.of(),
                "skewer-hz.default.svc.cluster.local"),
            "node-1",
            "node",
            "j");

    JoinConfig join = config.getNetworkConfig().getJoin();
    assertThat(join.getKubernetesConfig().isEnabled()).isTrue();
    assertThat(join.getKubernetesConfig().getProperty("service-dns"))
        .isEqualTo("skewer-hz.default.svc.cluster.local");
    assertThat(join.getKubernetesConfig().getProperty("service-port")).isEqualTo("5801");
    assertThat(config.getNetworkConfig().getPublicAddress()).isEqualTo("10.1.2.3:5801");
    assertThat(config.getNetworkConfig().getPort()).isEqualTo(5801);
    assertThat(config.getProperty("hazelcast.socket.bind.any")).isEqualTo("true");
    assertThat(config.getClusterName()).isEqualTo("skewer-j");
    assertThat(join.getTcpIpConfig().isEnabled()).isFalse();
    assertThat(join.getMulticastConfig().isEnabled()).isFalse();
    assertThat(join.getAutoDetectionConfig().isEnabled()).isFalse();
    assertThat(config.getProperty("hazelcast.phone.home.enabled")).isEqualTo("false");
    assertThat(config.getProperty("hazelcast.heartbeat.interval.seconds")).isEqualTo("1");
    assertThat(config.getProperty("hazelcast.max.no.heartbeat.seconds")).isEqualTo("5");
    assertThat(config.getProperty(HazelcastMembers.BACKUP_TIMEOUT_PROPERTY)).isEqualTo("1000");
    assertThat(config.getMemberAttributeConfig().getAttributes())
        .containsEntry("skewer.role", "node")
        .containsEntry("skewer.name", "node-1")
        .containsEntry("skewer.job", "j");
  }

  @Test
  void shouldBindTheGivenAddressAndAdvertiseThePublicOne() {
    Config config =
        HazelcastMembers.config(
            new ClusterSettings(
                "c", "10.0.0.5", "node-1.example", 5701, List.of("10.0.0.6:5701"), null),
            "node-1",
            "node");
    assertThat(config.getProperty("hazelcast.socket.bind.any")).isEqualTo("false");
    assertThat(config.getNetworkConfig().getInterfaces().isEnabled()).isTrue();
    assertThat(config.getNetworkConfig().getInterfaces().getInterfaces())
        .containsExactly("10.0.0.5");
    assertThat(config.getNetworkConfig().getPublicAddress()).isEqualTo("node-1.example:5701");
    JoinConfig join = config.getNetworkConfig().getJoin();
    assertThat(join.getTcpIpConfig().isEnabled()).isTrue();
    assertThat(join.getTcpIpConfig().getMembers()).containsExactly("10.0.0.6:5701");
    assertThat(join.getTcpIpConfig().getConnectionTimeoutSeconds())
        .isEqualTo(HazelcastMembers.JOIN_TIMEOUT_SECONDS);
    assertThat(join.getKubernetesConfig().isEnabled()).isFalse();
  }

  @Test
  void shouldTakeTheJoinTimeoutFromItsPropertyAndRefuseOneThatCannotWork() {
    ClusterSettings settings = ClusterSettings.loopback("c", 5701, List.of("127.0.0.1:5702"));
    try {
      System.setProperty(HazelcastMembers.JOIN_TIMEOUT_PROPERTY, " 3 ");
      assertThat(
              HazelcastMembers.config(settings, "node-1", "node")
                  .getNetworkConfig()
                  .getJoin()
                  .getTcpIpConfig()
                  .getConnectionTimeoutSeconds())
          .isEqualTo(3);
      for (String bad : List.of("0", "-1", "1.5", "one", "")) {
        System.setProperty(HazelcastMembers.JOIN_TIMEOUT_PROPERTY, bad);
        assertThatThrownBy(() -> HazelcastMembers.config(settings, "node-1", "node"))
            .as("'%s'", bad)
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage(
                "-Dskewer.hazelcast.join.timeout.seconds must be a whole number of seconds, at"
                    + " least 1; was '"
                    + bad
                    + "'");
      }
    } finally {
      System.clearProperty(HazelcastMembers.JOIN_TIMEOUT_PROPERTY);
    }
  }

  @Test
  void shouldLetASystemPropertyOverrideSkewersHazelcastProperty() {
    // given
    String name = "hazelcast.max.no.heartbeat.seconds";
    System.setProperty(name, "11");
    try {
      // when
      Config config =
          HazelcastMembers.config(ClusterSettings.loopback("c", 5701, List.of()), "node-1", "node");

      // then: Skewer's 5 is not set, so Hazelcast reads the system property
      assertThat(config.getProperties()).doesNotContainKey(name);
      assertThat(config.getProperty(name)).isEqualTo("11");
      assertThat(config.getProperty("hazelcast.heartbeat.interval.seconds")).isEqualTo("1");
    } finally {
      System.clearProperty(name);
    }
  }

  @Test
  void shouldTurnHazelcastsOwnMetricsOffUnlessTheSystemPropertyAsksForThem() {
    ClusterSettings settings = ClusterSettings.loopback("c", 5701, List.of());
    assertThat(HazelcastMembers.config(settings, "node-1", "node").getMetricsConfig().isEnabled())
        .isFalse();
    System.setProperty(HazelcastMembers.METRICS_PROPERTY, "true");
    try {
      // Skewer leaves Hazelcast's default (on) alone; Hazelcast itself reads the property
      assertThat(HazelcastMembers.config(settings, "node-1", "node").getMetricsConfig().isEnabled())
          .isTrue();
    } finally {
      System.clearProperty(HazelcastMembers.METRICS_PROPERTY);
    }
  }

  @Test
  void shouldValidateSettings() {
    assertThatThrownBy(() -> ClusterSettings.loopback("c", 0, List.of()))
        .hasMessage("port must be in [1, 65535], was 0");
    assertThatThrownBy(() -> ClusterSettings.loopback("c", 5701, List.of("127.0.0.1")))
        .hasMessage("members entries must be host:port, was '127.0.0.1'");
    assertThatThrownBy(() -> ClusterSettings.loopback("c", 5701, List.of("127.0.0.1:15701-15703")))
        .hasMessage("members entries must be host:port, was '127.0.0.1:15701-15703'");
    assertThatThrownBy(() -> new ClusterSettings("c", "h", null, 5701, List.of(), " "))
        .hasMessage("kubernetesServiceDns must be a DNS name or null, was ' '");
    assertThatThrownBy(() -> new ClusterSettings(" ", "h", null, 5701, List.of(), null))
        .hasMessage("clusterName must be non-blank, was ' '");
    assertThatThrownBy(() -> new ClusterSettings("c", "0.0.0.0", null, 5701, List.of(), null))
        .hasMessage("publicAddress must be set when bindAddress is the wildcard 0.0.0.0");
  }
}

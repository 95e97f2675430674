package dev.skewer.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.core.cluster.ClusterSettings;
import dev.skewer.core.cluster.DeadMemberEviction;
import dev.skewer.core.cluster.HazelcastMembers;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.core.net.FreePorts;
import dev.skewer.testkit.kafka.EmbeddedKafka;
import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CloseOptions.GroupMembershipOperation;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Two static consumer-group members on a real KRaft broker, each beside a real Hazelcast member of
 * the same name; one process "dies" (its consumer stops heartbeating without leaving, its member
 * stops). With {@link DeadMemberEviction} on the survivor, the group moves the dead member's
 * partitions long before the 45 s session timeout; without it, they stay where they were.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeadMemberEvictionIT {

  private static final String TOPIC = "eviction-in";
  private static final int PARTITIONS = 4;
  private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(45);

  private EmbeddedKafka kafka;

  @BeforeAll
  void start() throws IOException {
    kafka = EmbeddedKafka.start();
    kafka.createTopic(TOPIC, PARTITIONS, Map.of());
  }

  @AfterAll
  void stop() {
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void shouldMoveADeadProcesssPartitionsAtOnceWhenHazelcastSeesItLeave() throws Exception {
    // given two processes of one job sharing the topic's partitions, the survivor evicting
    String group = "eviction-on";
    List<HazelcastInstance> members = twoMembers(group);
    HazelcastInstance survivorMember = members.get(0);
    HazelcastInstance deadMember = members.get(1);
    try (StaticConsumer survivor = new StaticConsumer(group, survivorMember);
        StaticConsumer dead = new StaticConsumer(group, deadMember);
        DeadMemberEviction eviction =
            DeadMemberEviction.start(
                survivorMember,
                Admin.create(KafkaSettings.of(kafka.bootstrapServers()).adminConfig()),
                group,
                "node",
                "job")) {
      awaitShared(survivor, dead);

      // when the second process dies: no leave, no more heartbeats, its member gone
      long diedNs = System.nanoTime();
      dead.die();
      deadMember.getLifecycleService().terminate();

      // then the survivor owns every partition well before the session would have expired
      await()
          .atMost(SESSION_TIMEOUT.minusSeconds(15))
          .untilAsserted(() -> assertThat(survivor.owned()).hasSize(PARTITIONS));
      System.out.printf(
          "DeadMemberEvictionIT: every partition owned by the survivor %d ms after the kill%n",
          (System.nanoTime() - diedNs) / 1_000_000);
    } finally {
      survivorMember.getLifecycleService().terminate();
    }
  }

  @Test
  void shouldLeaveADeadProcesssPartitionsToTheSessionTimeoutWithoutEviction() throws Exception {
    // given the same two processes, nobody evicting
    String group = "eviction-off";
    List<HazelcastInstance> members = twoMembers(group);
    HazelcastInstance survivorMember = members.get(0);
    HazelcastInstance deadMember = members.get(1);
    try (StaticConsumer survivor = new StaticConsumer(group, survivorMember);
        StaticConsumer dead = new StaticConsumer(group, deadMember)) {
      awaitShared(survivor, dead);
      Set<Integer> before = Set.copyOf(survivor.owned());

      // when the second process dies
      dead.die();
      deadMember.getLifecycleService().terminate();
      Thread.sleep(10_000);

      // then its partitions are still its own: only the session timeout would move them
      assertThat(survivor.owned()).isEqualTo(before).hasSizeLessThan(PARTITIONS);
    } finally {
      survivorMember.getLifecycleService().terminate();
    }
  }

  /** Two Hazelcast members of a new cluster: node-1 and node-2 of job "job". */
  private static List<HazelcastInstance> twoMembers(String name) throws IOException {
    int first = FreePorts.next();
    int second = FreePorts.next();
    List<String> addresses = List.of("127.0.0.1:" + first, "127.0.0.1:" + second);
    String cluster = "eviction-it-" + name + "-" + first;
    return List.of(
        HazelcastMembers.start(
            ClusterSettings.loopback(cluster, first, addresses), "node-1", "node", "job"),
        HazelcastMembers.start(
            ClusterSettings.loopback(cluster, second, addresses), "node-2", "node", "job"));
  }

  private static void awaitShared(StaticConsumer a, StaticConsumer b) {
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              assertThat(a.owned()).isNotEmpty();
              assertThat(b.owned()).isNotEmpty();
              assertThat(a.owned().size() + b.owned().size()).isEqualTo(PARTITIONS);
            });
  }

  /**
   * A static member of {@code group}, named as the stage consumer beside {@code member} is, polling
   * on its own thread, tracking what it owns.
   */
  private final class StaticConsumer implements AutoCloseable {
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Set<Integer> owned = ConcurrentHashMap.newKeySet();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile boolean leaveOnClose = true;

    StaticConsumer(String group, HazelcastInstance member) {
      String instance = DeadMemberEviction.groupInstanceId(member.getCluster().getLocalMember());
      Map<String, Object> config =
          new HashMap<>(KafkaSettings.of(kafka.bootstrapServers()).consumerConfig(group));
      config.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instance);
      config.put(
          ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
          CooperativeStickyAssignor.class.getName());
      config.put(
          ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, Long.toString(SESSION_TIMEOUT.toMillis()));
      config.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "1000");
      consumer =
          new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
      thread = new Thread(this::run, "eviction-it-" + instance);
      thread.start();
    }

    private void run() {
      consumer.subscribe(
          List.of(TOPIC),
          new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
              partitions.forEach(tp -> owned.add(tp.partition()));
            }

            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
              partitions.forEach(tp -> owned.remove(tp.partition()));
            }
          });
      try {
        while (running) {
          consumer.poll(Duration.ofMillis(200));
        }
      } catch (WakeupException e) {
        // stopping
      } finally {
        consumer.close(
            CloseOptions.groupMembershipOperation(
                    leaveOnClose
                        ? GroupMembershipOperation.LEAVE_GROUP
                        : GroupMembershipOperation.REMAIN_IN_GROUP)
                .withTimeout(Duration.ofSeconds(10)));
      }
    }

    Set<Integer> owned() {
      return owned;
    }

    /** Stops heartbeating without leaving the group, as a killed process does. */
    void die() throws InterruptedException {
      leaveOnClose = false;
      close();
    }

    @Override
    public void close() throws InterruptedException {
      if (!running) {
        return;
      }
      running = false;
      consumer.wakeup();
      thread.join(15_000);
    }
  }
}

package dev.skewer.coordinator.hotkey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skewer.core.hotkey.HotKey;
import dev.skewer.core.hotkey.HotKeyFollower;
import dev.skewer.core.hotkey.HotKeyTable;
import dev.skewer.core.hotkey.SaltingConfig;
import dev.skewer.core.hotkey.SaltingKeySerializer;
import dev.skewer.core.hotkey.SaltingPartitioner;
import dev.skewer.testkit.kafka.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A producer configured with nothing but {@link SaltingPartitioner}, {@link SaltingKeySerializer}
 * and standard properties follows the compacted topic the {@link HotKeyPublisher} writes.
 */
class HotKeyPublicationIT {

  private static final String TOPIC = "events";
  private static final String HOTKEYS = "skewer.hotkeys";
  private static final int PARTITIONS = 8;
  private static EmbeddedKafka kafka;

  @BeforeAll
  static void startBroker() {
    kafka = EmbeddedKafka.start();
    kafka.createTopic(TOPIC, PARTITIONS, Map.of());
    HotKeyPublisher.ensureTopic(kafka.admin(), HOTKEYS, (short) 1, Duration.ofSeconds(30), true);
  }

  @AfterAll
  static void stopBroker() {
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void shouldSpreadAHotKeyOverItsFanoutSoonAfterPublicationWithoutBlockingSend() throws Exception {
    // given: a producer with the salting classes, and a cold key
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, SaltingKeySerializer.class.getName());
    config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    config.put(ProducerConfig.PARTITIONER_CLASS_CONFIG, SaltingPartitioner.class.getName());
    config.put(SaltingConfig.TOPIC_CONFIG, HOTKEYS);
    config.put(ProducerConfig.LINGER_MS_CONFIG, 1);
    int bare = Utils.toPositive(Utils.murmur2("ad0".getBytes(StandardCharsets.UTF_8))) % PARTITIONS;
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(config);
        HotKeyPublisher publisher =
            HotKeyPublisher.create(kafka.bootstrapServers(), HOTKEYS, null, null)) {
      assertThat(sendBatch(producer, 50)).containsExactly(bare);

      // when: ad0 becomes hot with fanout 4
      publisher.publish(HotKeyTable.of(new HotKey("ad0", 4, 1)));
      long publishedNs = System.nanoTime();

      // then: within seconds its records land on exactly the 4 partitions bare .. bare+3
      Set<Integer> expected = new HashSet<>();
      for (int i = 0; i < 4; i++) {
        expected.add((bare + i) % PARTITIONS);
      }
      await()
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(100))
          .untilAsserted(() -> assertThat(sendBatch(producer, 200)).isEqualTo(expected));
      System.err.printf(
          "hot key spread %.1f s after publication%n", (System.nanoTime() - publishedNs) / 1e9);

      // and: back to fanout 1 by a tombstone
      publisher.publish(HotKeyTable.EMPTY);
      await()
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(100))
          .untilAsserted(() -> assertThat(sendBatch(producer, 50)).containsExactly(bare));
    }
  }

  @Test
  void shouldFollowATopicCreatedAfterTheFollowerStarted() {
    // given: a follower of a topic that does not exist yet
    String late = "skewer.hotkeys.late";
    try (HotKeyFollower follower =
            HotKeyFollower.start(Map.of("bootstrap.servers", kafka.bootstrapServers()), late);
        HotKeyPublisher publisher =
            HotKeyPublisher.create(kafka.bootstrapServers(), late, null, null)) {
      assertThat(follower.current()).isEqualTo(HotKeyTable.EMPTY);
      // when
      HotKeyPublisher.ensureTopic(kafka.admin(), late, (short) 1, Duration.ofSeconds(30), true);
      publisher.publish(HotKeyTable.of(new HotKey("ad1", 2, 5), new HotKey("ad2", 3, 6)));
      publisher.publish(HotKeyTable.of(new HotKey("ad2", 5, 6)));
      // then
      await()
          .atMost(Duration.ofSeconds(15))
          .untilAsserted(
              () ->
                  assertThat(follower.current())
                      .isEqualTo(HotKeyTable.of(new HotKey("ad2", 5, 6))));
      assertThat(follower.badRecords()).isZero();
    }
  }

  /** Sends n records of ad0; asserts each send() returned quickly; the partitions they hit. */
  private static Set<Integer> sendBatch(KafkaProducer<String, String> producer, int n)
      throws Exception {
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long t0 = System.nanoTime();
      sent.add(producer.send(new ProducerRecord<>(TOPIC, "ad0", "{\"key\":\"ad0\"}")));
      assertThat(System.nanoTime() - t0)
          .as("send() blocked")
          .isLessThan(Duration.ofMillis(500).toNanos());
    }
    Set<Integer> partitions = new HashSet<>();
    for (Future<RecordMetadata> f : sent) {
      partitions.add(f.get().partition());
    }
    return partitions;
  }
}

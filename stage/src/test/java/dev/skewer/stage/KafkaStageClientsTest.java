package dev.skewer.stage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.core.kafka.KafkaSettings;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

/** The stage's real clients as configured (no broker needed: clients connect lazily). */
class KafkaStageClientsTest {

  @Test
  void shouldMakeAStaticMemberWithAnInstanceIdAndOneProduceRequestInFlight() {
    KafkaStageClients clients =
        new KafkaStageClients(
            KafkaSettings.of("127.0.0.1:1"), "g", "node-1.uuid", "c", "p", Map.of());
    Consumer<byte[], byte[]> consumer = clients.consumer();
    try {
      assertThat(consumer.groupMetadata().groupInstanceId()).contains("node-1.uuid");
      assertThat(consumer.groupMetadata().groupId()).isEqualTo("g");
    } finally {
      consumer.close(Duration.ZERO); // nothing to leave: it never joined
    }
    assertThat(clients.producerConfig())
        .containsEntry(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1")
        .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true")
        .containsEntry(ProducerConfig.CLIENT_ID_CONFIG, "p");
  }

  @Test
  void shouldLetTheUsersPropertiesSetTheRequestsInFlight() {
    KafkaStageClients clients =
        withUserProperties(Map.of(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5"));
    assertThat(clients.producerConfig())
        .containsEntry(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
  }

  @Test
  void shouldHeartbeatEveryQuarterSecondUnlessTheUserSetsAnInterval() {
    assertThat(withUserProperties(Map.of()).consumerConfig())
        .containsEntry(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "250")
        .containsEntry(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    assertThat(
            withUserProperties(Map.of(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "3000"))
                .consumerConfig())
        .containsEntry(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "3000");
  }

  /** A dynamic member's clients with {@code properties} as the user's Kafka client properties. */
  private static KafkaStageClients withUserProperties(Map<String, String> properties) {
    return new KafkaStageClients(
        new KafkaSettings("127.0.0.1:1", properties), "g", null, "c", "p", Map.of());
  }

  @Test
  void shouldMakeADynamicMemberWithoutAnInstanceId() {
    KafkaStageClients clients =
        new KafkaStageClients(KafkaSettings.of("127.0.0.1:1"), "g", null, "c", "p", Map.of());
    Consumer<byte[], byte[]> consumer = clients.consumer();
    try {
      assertThat(consumer.groupMetadata().groupInstanceId()).isEmpty();
    } finally {
      consumer.close(Duration.ZERO);
    }
  }

  @Test
  void shouldSizeTransactionalRequestsForTheCheckpointStoresLargestRecord() {
    String one = "p/partials/3";
    Duration timeout = Duration.ofSeconds(60);
    KafkaSettings kafka = KafkaSettings.of("127.0.0.1:1");

    assertThat(
            new KafkaStageClients(kafka, "g", null, "c", "p", Map.of())
                .transactionalConfig(one, timeout))
        .containsEntry(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, "1048576")
        .containsEntry(ProducerConfig.CLIENT_ID_CONFIG, "p-3");
    assertThat(
            new KafkaStageClients(kafka, "g", null, "c", "p", Map.of(), 8 * 1024 * 1024 + 65_536)
                .transactionalConfig(one, timeout))
        .containsEntry(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, "8454144");
    assertThat(
            new KafkaStageClients(
                    new KafkaSettings(
                        "127.0.0.1:1", Map.of(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, "20000000")),
                    "g",
                    null,
                    "c",
                    "p",
                    Map.of(),
                    8 * 1024 * 1024 + 65_536)
                .transactionalConfig(one, timeout))
        .as("the user's larger size wins")
        .containsEntry(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, "20000000");
  }
}

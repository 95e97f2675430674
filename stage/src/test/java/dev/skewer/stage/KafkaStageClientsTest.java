package dev.skewer.stage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.core.kafka.KafkaSettings;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
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
        new KafkaStageClients(
            new KafkaSettings(
                "127.0.0.1:1", Map.of(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5")),
            "g",
            null,
            "c",
            "p",
            Map.of());
    assertThat(clients.producerConfig())
        .containsEntry(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
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
}

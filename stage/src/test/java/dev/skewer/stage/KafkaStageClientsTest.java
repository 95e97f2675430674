package dev.skewer.stage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.core.kafka.KafkaSettings;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

/** The stage producer's configuration (no broker needed). */
class KafkaStageClientsTest {

  @Test
  void shouldKeepOneProduceRequestInFlightPerBroker() {
    KafkaStageClients clients =
        new KafkaStageClients(KafkaSettings.of("127.0.0.1:1"), "g", "c", "p", Map.of());
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
            "c",
            "p",
            Map.of());
    assertThat(clients.producerConfig())
        .containsEntry(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
  }
}

package dev.skewer.core.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

class KafkaSettingsTest {

  private final KafkaSettings settings =
      new KafkaSettings(
          "127.0.0.1:9092", Map.of("security.protocol", "SASL_SSL", "linger.ms", "20"));

  @Test
  void shouldBuildAnIdempotentBatchingProducerWhoseDefaultsClientPropertiesOverride() {
    Map<String, Object> p = settings.producerConfig();
    assertThat(p)
        .containsEntry("bootstrap.servers", "127.0.0.1:9092")
        .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true")
        .containsEntry(ProducerConfig.ACKS_CONFIG, "all")
        .containsEntry(ProducerConfig.BATCH_SIZE_CONFIG, "131072")
        .containsEntry(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4")
        .containsEntry(ProducerConfig.LINGER_MS_CONFIG, "20")
        .containsEntry("security.protocol", "SASL_SSL");
    // the config is accepted by the client's own validation
    new ProducerConfig(p);
  }

  @Test
  void shouldBuildAManualCommitConsumerInTheGroup() {
    Map<String, Object> c = settings.consumerConfig("skewer-nodes");
    assertThat(c)
        .containsEntry(ConsumerConfig.GROUP_ID_CONFIG, "skewer-nodes")
        .containsEntry(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false")
        .containsEntry(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest")
        .containsEntry(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false")
        .containsEntry("security.protocol", "SASL_SSL");
    new ConsumerConfig(c);
    // a client property given by the user wins
    assertThat(
            new KafkaSettings("h:1", Map.of(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "true"))
                .consumerConfig(null))
        .containsEntry(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "true");
  }

  @Test
  void shouldBuildAnAdminConfigAndValidateTheBootstrapServers() {
    assertThat(settings.adminConfig()).containsEntry("bootstrap.servers", "127.0.0.1:9092");
    assertThat(KafkaSettings.of("h:1").clientProperties()).isEmpty();
    assertThatThrownBy(() -> new KafkaSettings(" ", null))
        .hasMessage("bootstrapServers must be non-blank, was ' '");
  }
}

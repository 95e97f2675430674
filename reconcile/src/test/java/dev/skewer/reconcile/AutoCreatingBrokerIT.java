package dev.skewer.reconcile;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.testkit.kafka.EmbeddedKafka;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * On a broker with Kafka's own default {@code auto.create.topics.enable=true} (the test brokers
 * elsewhere turn it off), a topic Skewer only reads is never created by reading it: a consumer's
 * metadata request for a misspelled results topic used to create it, with the broker's default
 * partition count, and reconcile then reported an empty topic instead of a missing one.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AutoCreatingBrokerIT {

  private EmbeddedKafka broker;

  @BeforeAll
  void startBroker() {
    broker = EmbeddedKafka.start(Map.of("auto.create.topics.enable", "true"));
  }

  @AfterAll
  void stopBroker() {
    broker.close();
  }

  @Test
  void shouldNameAMissingResultsTopicAndNotCreateIt() throws Exception {
    KafkaSettings kafka = KafkaSettings.of(broker.bootstrapServers());
    try (Admin admin = Admin.create(kafka.adminConfig())) {
      // the broker does create a topic a consumer asks about when the consumer allows it
      Map<String, Object> allowing = kafka.consumerConfig(null);
      allowing.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "true");
      try (KafkaConsumer<byte[], byte[]> c =
          new KafkaConsumer<>(allowing, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
        c.partitionsFor("asked-about", Duration.ofSeconds(10));
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> admin.listTopics().names().get().contains("asked-about"));

      // Skewer's consumers do not: reconcile names the missing topic and leaves the broker as it
      // was
      assertThatThrownBy(
              () ->
                  ResultsReader.read(
                      kafka,
                      new ResultsReader.Query("resutls", "key", null, null, false),
                      null,
                      Duration.ofSeconds(10)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("topic 'resutls' does not exist");
      await()
          .during(Duration.ofSeconds(3))
          .atMost(Duration.ofSeconds(10))
          .until(() -> !admin.listTopics().names().get().contains("resutls"));
    }
  }
}

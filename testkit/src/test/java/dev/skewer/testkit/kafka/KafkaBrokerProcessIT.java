package dev.skewer.testkit.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaBrokerProcessIT {

  @TempDir Path dataDir;

  @Test
  void shouldKeepAcknowledgedRecordsWhenKilledAndRestarted() throws Exception {
    // given
    try (KafkaBrokerProcess broker = KafkaBrokerProcess.start(dataDir, 0)) {
      String bootstrap = broker.bootstrapServers();
      broker.createTopic("events", 2, Map.of());
      try (KafkaProducer<byte[], byte[]> producer = EmbeddedKafkaIT.producer(bootstrap)) {
        for (int i = 0; i < 10; i++) {
          producer.send(EmbeddedKafkaIT.record("events", i % 2, i)).get();
        }
      }

      // when
      broker.kill();
      assertThat(broker.isAlive()).isFalse();
      broker.restart();

      // then
      assertThat(broker.bootstrapServers()).isEqualTo(bootstrap);
      List<ConsumerRecord<byte[], byte[]>> records =
          TopicReader.readAll(bootstrap, "events", Duration.ofSeconds(60));
      assertThat(records.stream().map(r -> new String(r.value(), StandardCharsets.UTF_8)))
          .containsExactlyInAnyOrderElementsOf(
              IntStream.range(0, 10).mapToObj(i -> "v" + i).toList());
      broker.stop();
      assertThat(broker.isAlive()).isFalse();
    }
  }
}

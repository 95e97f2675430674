package dev.skewer.testkit.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

class EmbeddedKafkaIT {

  @Test
  void shouldProduceAndReadBackWhenStartedInProcess() throws Exception {
    // given
    java.nio.file.Path dataDir;
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      dataDir = kafka.dataDir();
      kafka.createTopic("events", 3, Map.of("cleanup.policy", "delete"));

      // when
      try (KafkaProducer<byte[], byte[]> producer = producer(kafka.bootstrapServers())) {
        for (int i = 0; i < 10; i++) {
          producer.send(record("events", i % 3, i)).get();
        }
      }
      List<ConsumerRecord<byte[], byte[]>> records =
          TopicReader.readAll(kafka.bootstrapServers(), "events", Duration.ofSeconds(30));

      // then
      assertThat(records).hasSize(10);
      assertThat(records.stream().map(r -> new String(r.value(), StandardCharsets.UTF_8)))
          .containsExactlyInAnyOrderElementsOf(
              IntStream.range(0, 10).mapToObj(i -> "v" + i).toList());
      assertThat(records.stream().filter(r -> r.partition() == 1))
          .extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
          .containsExactly("v1", "v4", "v7");
    }
    assertThat(dataDir).doesNotExist();
  }

  static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    return new KafkaProducer<>(props);
  }

  static ProducerRecord<byte[], byte[]> record(String topic, int partition, int i) {
    return new ProducerRecord<>(
        topic,
        partition,
        ("k" + i).getBytes(StandardCharsets.UTF_8),
        ("v" + i).getBytes(StandardCharsets.UTF_8));
  }
}

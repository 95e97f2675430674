package dev.skewer.stage;

import dev.skewer.core.kafka.KafkaSettings;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Real Kafka clients for a stage. Consumer defaults (each overridable by the user's client
 * properties): manual commits, start at the earliest offset, the cooperative-sticky assignor (a
 * rebalance moves only the partitions that change owner, so the others keep running), plus the
 * stage's own tuning.
 *
 * @param kafka bootstrap servers and the user's client properties
 * @param groupId the stage's consumer group
 * @param consumerClientId the consumer's client id (unless the user sets one)
 * @param producerClientId the producer's client id (unless the user sets one)
 * @param consumerDefaults the stage's consumer tuning (e.g. fetch sizes), below the user's
 */
public record KafkaStageClients(
    KafkaSettings kafka,
    String groupId,
    String consumerClientId,
    String producerClientId,
    Map<String, Object> consumerDefaults)
    implements StageClients {

  public KafkaStageClients {
    Objects.requireNonNull(kafka, "kafka");
    Objects.requireNonNull(groupId, "groupId");
    Objects.requireNonNull(consumerClientId, "consumerClientId");
    Objects.requireNonNull(producerClientId, "producerClientId");
    consumerDefaults = consumerDefaults == null ? Map.of() : Map.copyOf(consumerDefaults);
  }

  @Override
  public Consumer<byte[], byte[]> consumer() {
    Map<String, Object> config = new HashMap<>(kafka.consumerConfig(groupId));
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    config.putIfAbsent(
        ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
        CooperativeStickyAssignor.class.getName());
    config.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
    consumerDefaults.forEach(config::putIfAbsent);
    config.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, consumerClientId);
    return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  @Override
  public Producer<byte[], byte[]> producer() {
    Map<String, Object> config = new HashMap<>(kafka.producerConfig());
    config.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, producerClientId);
    return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
  }
}

package dev.skewer.core.kafka;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * How to reach Kafka: the bootstrap servers plus arbitrary client properties (security, timeouts),
 * which are applied last and so override Skewer's defaults.
 *
 * <p>Record keys are strings and values byte arrays in every config built here (event keys, partial
 * keys and result keys are all strings; values are JSON or binary).
 *
 * @param bootstrapServers {@code host:port[,host:port...]}; non-blank
 * @param clientProperties extra client properties; null means none
 */
public record KafkaSettings(String bootstrapServers, Map<String, String> clientProperties) {

  public static final String DEFAULT_BOOTSTRAP_SERVERS = "127.0.0.1:9092";

  public KafkaSettings {
    if (bootstrapServers == null || bootstrapServers.isBlank()) {
      throw new IllegalArgumentException(
          "bootstrapServers must be non-blank, was "
              + (bootstrapServers == null ? "null" : "'" + bootstrapServers + "'"));
    }
    clientProperties = clientProperties == null ? Map.of() : Map.copyOf(clientProperties);
  }

  /** Settings with no extra client properties. */
  public static KafkaSettings of(String bootstrapServers) {
    return new KafkaSettings(bootstrapServers, Map.of());
  }

  /**
   * A consumer in group {@code groupId}: String keys, byte[] values, manual commits, {@code
   * auto.offset.reset=earliest}, {@code isolation.level=read_committed}, {@code
   * allow.auto.create.topics=false}.
   */
  public Map<String, Object> consumerConfig(String groupId) {
    Map<String, Object> c = base();
    if (groupId != null) {
      c.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
    }
    c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    // a topic Skewer reads is provisioned or checked first; a consumer's metadata request must
    // never create one with the broker's defaults (a misspelled topic is an error, not a new topic)
    c.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
    return overrides(c);
  }

  /**
   * An idempotent producer: String keys, byte[] values, {@code acks=all}, {@code linger.ms=5},
   * {@code batch.size=131072}, {@code compression.type=lz4}.
   */
  public Map<String, Object> producerConfig() {
    Map<String, Object> c = base();
    c.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    c.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    c.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    c.put(ProducerConfig.ACKS_CONFIG, "all");
    c.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    c.put(ProducerConfig.BATCH_SIZE_CONFIG, "131072");
    c.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    return overrides(c);
  }

  /** An admin client. */
  public Map<String, Object> adminConfig() {
    return overrides(base());
  }

  private Map<String, Object> base() {
    Map<String, Object> c = new HashMap<>();
    c.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    return c;
  }

  private Map<String, Object> overrides(Map<String, Object> c) {
    c.putAll(clientProperties);
    return c;
  }
}

package dev.skewer.stage;

import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.checkpoint.HazelcastCheckpointStore;
import dev.skewer.core.kafka.KafkaSettings;
import java.time.Duration;
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
 * stage's own tuning. The consumer always reads {@code read_committed}, whatever the user's
 * properties say: a stage must never see what an upstream transaction aborted.
 *
 * <p>The (non-transactional) producer keeps one request in flight per broker, so that a broker
 * restart cannot leave a gap in what it wrote (see {@link #producer}).
 *
 * <p>With a {@code groupInstanceId} the consumer is a <em>static member</em> of its group ({@code
 * group.instance.id}): it keeps its membership across a restart within the session timeout, and
 * another process can remove it from the group by that id the moment it is known dead ({@link
 * dev.skewer.core.cluster.DeadMemberEviction}) instead of waiting for the session to expire. A
 * static member does not leave its group when it closes unless asked; the poll loop asks.
 *
 * @param kafka bootstrap servers and the user's client properties
 * @param groupId the stage's consumer group
 * @param groupInstanceId this process's unique name in the group ({@code group.instance.id}, unless
 *     the user's properties set one), or null for a dynamic member
 * @param consumerClientId the consumer's client id (unless the user sets one)
 * @param producerClientId the producer's client id (unless the user sets one)
 * @param consumerDefaults the stage's consumer tuning (e.g. fetch sizes), below the user's
 * @param checkpointRecordBytes the largest record the checkpoint store writes through a
 *     transactional producer ({@link CheckpointStore#maxRecordBytes}), 0 for none
 */
public record KafkaStageClients(
    KafkaSettings kafka,
    String groupId,
    String groupInstanceId,
    String consumerClientId,
    String producerClientId,
    Map<String, Object> consumerDefaults,
    int checkpointRecordBytes)
    implements StageClients {

  /** The stage consumers' {@code heartbeat.interval.ms} unless the user's properties set one. */
  static final String DEFAULT_HEARTBEAT_INTERVAL_MS = "250";

  /** The stage consumers' {@code max.poll.records} unless the user's properties set one. */
  public static final String DEFAULT_MAX_POLL_RECORDS = "5000";

  /** Kafka's default {@code max.request.size}. */
  private static final int KAFKA_DEFAULT_MAX_REQUEST_BYTES = 1024 * 1024;

  /** Clients for a stage whose checkpoint store writes the default chunk records. */
  public KafkaStageClients(
      KafkaSettings kafka,
      String groupId,
      String groupInstanceId,
      String consumerClientId,
      String producerClientId,
      Map<String, Object> consumerDefaults) {
    this(
        kafka,
        groupId,
        groupInstanceId,
        consumerClientId,
        producerClientId,
        consumerDefaults,
        HazelcastCheckpointStore.DEFAULT_MAX_RECORD_BYTES);
  }

  public KafkaStageClients {
    if (checkpointRecordBytes < 0) {
      throw new IllegalArgumentException(
          "checkpointRecordBytes must be >= 0, was " + checkpointRecordBytes);
    }
    Objects.requireNonNull(kafka, "kafka");
    Objects.requireNonNull(groupId, "groupId");
    Objects.requireNonNull(consumerClientId, "consumerClientId");
    Objects.requireNonNull(producerClientId, "producerClientId");
    consumerDefaults = consumerDefaults == null ? Map.of() : Map.copyOf(consumerDefaults);
  }

  @Override
  public Consumer<byte[], byte[]> consumer() {
    return new KafkaConsumer<>(
        consumerConfig(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  /** The configuration of {@link #consumer}. */
  Map<String, Object> consumerConfig() {
    Map<String, Object> config = new HashMap<>(kafka.consumerConfig(groupId));
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    config.putIfAbsent(
        ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
        CooperativeStickyAssignor.class.getName());
    config.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, DEFAULT_MAX_POLL_RECORDS);
    // a cooperative rebalance takes two rounds, and a member learns of each round at its next
    // heartbeat: 250 ms instead of Kafka's 3 s makes a joining or leaving process move partitions
    // in about half a second instead of 6 (and a dead one's, once it is removed from the group, a
    // few hundred ms sooner than at 1 s); four small requests a second per process
    config.putIfAbsent(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, DEFAULT_HEARTBEAT_INTERVAL_MS);
    consumerDefaults.forEach(config::putIfAbsent);
    config.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, consumerClientId);
    if (groupInstanceId != null) {
      config.putIfAbsent(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, groupInstanceId);
    }
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    return config;
  }

  @Override
  public Producer<byte[], byte[]> producer() {
    return new KafkaProducer<>(
        producerConfig(), new ByteArraySerializer(), new ByteArraySerializer());
  }

  /** The configuration of {@link #producer}. */
  Map<String, Object> producerConfig() {
    Map<String, Object> config = new HashMap<>(kafka.producerConfig());
    config.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, producerClientId);
    // one request in flight per broker: with several, a broker restart can leave a gap. The broker
    // keeps the sequence of only the last batch of each producer across a restart, so the retry of
    // an earlier batch in flight at the stop is refused (OUT_OF_ORDER_SEQUENCE_NUMBER) and retried
    // until delivery.timeout.ms (2 min) fails it, while later batches are already written: the
    // stage
    // rewinds only then. With one in flight, the retried batch is the last one and is recognised.
    config.putIfAbsent(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
    return config;
  }

  /**
   * The partition's transactional producer: the user's producer properties, then {@code
   * transactional.id}, idempotence, the transaction timeout, a client id of its own ({@code <client
   * id>-<partition>}, the client id being the user's or {@code producerClientId}) and, unless the
   * user's properties allow more, requests of Kafka's default 1 MiB or, when larger, of the
   * checkpoint store's largest record ({@link #checkpointRecordBytes}: a chunk and its header).
   */
  @Override
  public Producer<byte[], byte[]> transactionalProducer(
      String transactionalId, Duration transactionTimeout) {
    Map<String, Object> config = transactionalConfig(transactionalId, transactionTimeout);
    return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
  }

  /** The configuration {@link #transactionalProducer} uses (exposed for tests). */
  Map<String, Object> transactionalConfig(String transactionalId, Duration transactionTimeout) {
    Map<String, Object> config = new HashMap<>(kafka.producerConfig());
    config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(
        ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, Long.toString(transactionTimeout.toMillis()));
    int floor = Math.max(KAFKA_DEFAULT_MAX_REQUEST_BYTES, checkpointRecordBytes);
    Object user = config.get(ProducerConfig.MAX_REQUEST_SIZE_CONFIG);
    int size = user == null ? floor : Math.max(floor, Integer.parseInt(user.toString().trim()));
    config.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(size));
    String suffix = transactionalId.substring(transactionalId.lastIndexOf('/') + 1);
    Object base = config.getOrDefault(ProducerConfig.CLIENT_ID_CONFIG, producerClientId);
    config.put(ProducerConfig.CLIENT_ID_CONFIG, base + "-" + suffix);
    return config;
  }
}

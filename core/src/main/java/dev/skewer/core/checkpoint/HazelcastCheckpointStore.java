package dev.skewer.core.checkpoint;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.skewer.core.job.JobNames;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.core.kafka.MissingTopicException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoints and epochs in the job's Hazelcast IMaps ({@code skewer.<job>.checkpoints}, {@code
 * skewer.<job>.epochs}, backup count 1; see {@link JobNames}), each write mirrored synchronously to
 * a compacted Kafka topic (by default {@code skewer.<job>.checkpoints}; record keys {@code
 * checkpoint/<id>} and {@code epoch/<id>}). When a store starts and finds the epochs map empty —
 * the whole Hazelcast cluster was lost — it reloads both maps from the topic first, so epochs keep
 * growing and owners resume from their last checkpoints.
 *
 * <p>Thread-safe; every method blocks (run it on a worker).
 */
public final class HazelcastCheckpointStore implements CheckpointStore {

  private static final Logger LOG = LoggerFactory.getLogger(HazelcastCheckpointStore.class);

  /** Checkpoints of 100,000 open keys are tens of megabytes. */
  public static final int MAX_CHECKPOINT_BYTES = 256 * 1024 * 1024;

  private final IMap<String, byte[]> checkpoints;
  private final IMap<String, Long> epochs;
  private final String topic;
  private final KafkaProducer<byte[], byte[]> producer; // null: no Kafka mirror

  private HazelcastCheckpointStore(
      HazelcastInstance hazelcast,
      JobNames names,
      String topic,
      KafkaProducer<byte[], byte[]> producer) {
    this.checkpoints = hazelcast.getMap(names.checkpointsMap());
    this.epochs = hazelcast.getMap(names.epochsMap());
    this.topic = topic;
    this.producer = producer;
  }

  /**
   * The store of the job {@code names}, mirrored to {@code topic} on {@code kafka}; with {@code
   * kafka == null} Hazelcast only.
   *
   * @param provision create {@code topic} (compacted) when it is missing; false: a missing topic is
   *     a {@link MissingTopicException}
   */
  public static HazelcastCheckpointStore create(
      HazelcastInstance hazelcast,
      KafkaSettings kafka,
      JobNames names,
      String topic,
      boolean provision) {
    if (kafka == null) {
      return new HazelcastCheckpointStore(hazelcast, names, null, null);
    }
    ensureTopic(kafka, topic, provision);
    Map<String, Object> config = new HashMap<>(kafka.producerConfig());
    config.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, MAX_CHECKPOINT_BYTES);
    config.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 2L * MAX_CHECKPOINT_BYTES);
    config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    config.put(ProducerConfig.CLIENT_ID_CONFIG, "skewer-checkpoints-" + hazelcast.getName());
    KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
    HazelcastCheckpointStore store =
        new HazelcastCheckpointStore(hazelcast, names, topic, producer);
    if (store.epochs.isEmpty()) {
      store.reloadFromTopic(kafka);
    }
    return store;
  }

  /**
   * Creates the compacted checkpoint topic (1 partition, room for checkpoints of {@value
   * #MAX_CHECKPOINT_BYTES} bytes) unless it exists; with {@code provision} false only checks it.
   * Blocking.
   *
   * @throws MissingTopicException when it is missing and {@code provision} is false
   */
  public static void ensureTopic(KafkaSettings kafka, String topic, boolean provision) {
    try (Admin admin = Admin.create(kafka.adminConfig())) {
      if (admin.listTopics().names().get().contains(topic)) {
        return;
      }
      if (!provision) {
        throw new MissingTopicException(List.of(topic), "the checkpoint topic");
      }
      NewTopic t =
          new NewTopic(topic, 1, (short) -1)
              .configs(
                  Map.of(
                      "cleanup.policy", "compact",
                      "max.message.bytes", Integer.toString(MAX_CHECKPOINT_BYTES),
                      "segment.bytes", Integer.toString(64 * 1024 * 1024),
                      "segment.ms", "600000",
                      "min.cleanable.dirty.ratio", "0.1"));
      admin.createTopics(List.of(t)).all().get();
      LOG.info("created compacted checkpoint topic {}", topic);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new KafkaException("cannot create checkpoint topic " + topic, e.getCause());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaException("interrupted creating checkpoint topic " + topic, e);
    }
  }

  /** Loads the latest epoch and checkpoint of every id from the topic into empty maps. */
  private void reloadFromTopic(KafkaSettings kafka) {
    Map<String, Object> config = new HashMap<>(kafka.consumerConfig("unused"));
    config.remove(ConsumerConfig.GROUP_ID_CONFIG);
    config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, MAX_CHECKPOINT_BYTES);
    config.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, MAX_CHECKPOINT_BYTES);
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    Map<String, byte[]> latest = new HashMap<>();
    long startNs = System.nanoTime();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      consumer
          .partitionsFor(topic)
          .forEach(p -> parts.add(new TopicPartition(topic, p.partition())));
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      Map<TopicPartition, Long> end = consumer.endOffsets(parts);
      while (parts.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          String key = new String(r.key(), StandardCharsets.UTF_8);
          if (r.value() == null) {
            latest.remove(key);
          } else {
            latest.put(key, r.value());
          }
        }
      }
    }
    int loaded = 0;
    for (Map.Entry<String, byte[]> e : latest.entrySet()) {
      String key = e.getKey();
      if (key.startsWith("epoch/")) {
        epochs.putIfAbsent(key.substring(6), ByteBuffer.wrap(e.getValue()).getLong());
        loaded++;
      } else if (key.startsWith("checkpoint/")) {
        checkpoints.putIfAbsent(key.substring(11), e.getValue());
        loaded++;
      }
    }
    if (loaded > 0) {
      LOG.info(
          "reloaded {} epochs and checkpoints from topic {} in {} ms",
          loaded,
          topic,
          (System.nanoTime() - startNs) / 1_000_000);
    }
  }

  @Override
  public long nextEpoch(String id) {
    while (true) {
      Long current = epochs.get(id);
      long next = (current == null ? 0 : current) + 1;
      boolean swapped =
          current == null
              ? epochs.putIfAbsent(id, next) == null
              : epochs.replace(id, current, next);
      if (swapped) {
        mirror("epoch/" + id, ByteBuffer.allocate(8).putLong(next).array());
        return next;
      }
    }
  }

  @Override
  public long currentEpoch(String id) {
    Long current = epochs.get(id);
    return current == null ? 0 : current;
  }

  @Override
  public Optional<Checkpoint> load(String id) {
    byte[] bytes = checkpoints.get(id);
    return bytes == null ? Optional.empty() : Optional.of(Checkpoint.decode(bytes));
  }

  @Override
  public boolean save(String id, Checkpoint checkpoint) {
    if (currentEpoch(id) > checkpoint.epoch()) {
      return false;
    }
    byte[] bytes = checkpoint.encode();
    checkpoints.set(id, bytes);
    mirror("checkpoint/" + id, bytes);
    return true;
  }

  private void mirror(String key, byte[] value) {
    if (producer == null) {
      return;
    }
    try {
      producer.send(new ProducerRecord<>(topic, key.getBytes(StandardCharsets.UTF_8), value)).get();
    } catch (ExecutionException e) {
      throw new KafkaException("cannot mirror " + key + " to " + topic, e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaException("interrupted mirroring " + key, e);
    }
  }

  /** Ids with a checkpoint (for operators and tests). */
  public Set<String> ids() {
    return checkpoints.keySet();
  }

  @Override
  public void close() {
    if (producer != null) {
      producer.close(Duration.ofSeconds(10));
    }
  }
}

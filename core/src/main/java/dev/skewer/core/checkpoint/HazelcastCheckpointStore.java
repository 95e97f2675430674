package dev.skewer.core.checkpoint;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.ReadOnly;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.IMap;
import dev.skewer.core.job.JobNames;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.core.kafka.MissingTopicException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
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
 * <p>Fencing is atomic: an id's fence (the highest epoch handed out) and its checkpoint live in one
 * entry of {@code skewer.<job>.checkpoints} ({@link FencedSlot}), and {@link #nextEpoch}, {@link
 * #save} and {@link #cache} are entry processors on it, so a zombie's save either lands before its
 * successor's {@code nextEpoch} or is refused — there is no window between the check and the write.
 * {@code skewer.<job>.epochs} holds a copy of each fence for operators.
 *
 * <p>{@link #save} tells where the mirror's record was written ({@link Saved}): {@code
 * at_least_once} owners commit that position with their input offset, and a successor whose maps
 * lost the checkpoint (both copies' members died before Hazelcast made new backups) reads it back
 * with {@link #read}.
 *
 * <p>{@code exactly_once} owners write their checkpoints to the same topic under the same key
 * inside their transactions ({@link #transactionalRecord}), read them back with {@code
 * read_committed} ({@link #read}), and keep the maps as a fast copy ({@link #cache}, not mirrored).
 *
 * <p>Thread-safe; every method blocks (run it on a worker).
 */
public final class HazelcastCheckpointStore implements CheckpointStore {

  private static final Logger LOG = LoggerFactory.getLogger(HazelcastCheckpointStore.class);

  /** Checkpoints of 100,000 open keys are tens of megabytes. */
  public static final int MAX_CHECKPOINT_BYTES = 256 * 1024 * 1024;

  /** How long {@link #read} waits for the checkpoint record to become readable. */
  static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

  private final IMap<String, byte[]> checkpoints; // id -> FencedSlot
  private final IMap<String, Long> epochs;
  private final KafkaSettings kafka; // null: no Kafka mirror
  private final String topic;
  private final KafkaProducer<byte[], byte[]> producer; // null: no Kafka mirror

  private HazelcastCheckpointStore(
      HazelcastInstance hazelcast,
      KafkaSettings kafka,
      JobNames names,
      String topic,
      KafkaProducer<byte[], byte[]> producer) {
    this.checkpoints = hazelcast.getMap(names.checkpointsMap());
    this.epochs = hazelcast.getMap(names.epochsMap());
    this.kafka = kafka;
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
      return new HazelcastCheckpointStore(hazelcast, null, names, null, null);
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
        new HazelcastCheckpointStore(hazelcast, kafka, names, topic, producer);
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
    Map<String, Long> fences = new HashMap<>();
    Map<String, byte[]> latestCheckpoints = new HashMap<>();
    int loaded = 0;
    for (Map.Entry<String, byte[]> e : latest.entrySet()) {
      String key = e.getKey();
      if (key.startsWith("epoch/")) {
        fences.merge(key.substring(6), ByteBuffer.wrap(e.getValue()).getLong(), Math::max);
        loaded++;
      } else if (key.startsWith("checkpoint/")) {
        String id = key.substring(11);
        latestCheckpoints.put(id, e.getValue());
        fences.merge(id, Checkpoint.decode(e.getValue()).epoch(), Math::max);
        loaded++;
      }
    }
    for (Map.Entry<String, Long> f : fences.entrySet()) {
      String id = f.getKey();
      checkpoints.putIfAbsent(id, new FencedSlot(f.getValue(), latestCheckpoints.get(id)).encode());
      epochs.putIfAbsent(id, f.getValue());
    }
    if (loaded > 0) {
      LOG.info(
          "reloaded {} epochs and checkpoints from topic {} in {} ms",
          loaded,
          topic,
          (System.nanoTime() - startNs) / 1_000_000);
    }
  }

  /** Hazelcast members (backup count 1) and the checkpoint topic outlive any one process. */
  @Override
  public boolean outlivesProcesses() {
    return true;
  }

  @Override
  public long nextEpoch(String id) {
    long next = checkpoints.executeOnKey(id, new NextEpoch());
    epochs.set(id, next); // for operators; the fence in the slot is what save checks
    mirror("epoch/" + id, ByteBuffer.allocate(8).putLong(next).array());
    return next;
  }

  @Override
  public long currentEpoch(String id) {
    return checkpoints.executeOnKey(id, new FenceOf());
  }

  @Override
  public Optional<Checkpoint> load(String id) {
    byte[] encoded = FencedSlot.decode(checkpoints.get(id)).checkpoint();
    return encoded == null ? Optional.empty() : Optional.of(Checkpoint.decode(encoded));
  }

  @Override
  public Saved save(String id, Checkpoint checkpoint) {
    byte[] bytes = checkpoint.encode();
    if (!checkpoints.executeOnKey(id, new Save(checkpoint.epoch(), bytes))) {
      return Saved.REFUSED;
    }
    RecordMetadata copy = mirror("checkpoint/" + id, bytes);
    return copy == null ? Saved.UNLOGGED : Saved.logged(copy.partition(), copy.offset());
  }

  @Override
  public boolean cache(String id, Checkpoint checkpoint) {
    return checkpoints.executeOnKey(id, new Save(checkpoint.epoch(), checkpoint.encode()));
  }

  @Override
  public Optional<ProducerRecord<byte[], byte[]>> transactionalRecord(
      String id, Checkpoint checkpoint) {
    if (topic == null) {
      return Optional.empty();
    }
    return Optional.of(
        new ProducerRecord<>(
            topic, ("checkpoint/" + id).getBytes(StandardCharsets.UTF_8), checkpoint.encode()));
  }

  @Override
  public Optional<Checkpoint> read(String id, int partition, long offset) {
    if (topic == null) {
      return Optional.empty();
    }
    Map<String, Object> config = new HashMap<>(kafka.consumerConfig(null));
    config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, MAX_CHECKPOINT_BYTES);
    config.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, MAX_CHECKPOINT_BYTES);
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    config.put(ConsumerConfig.CLIENT_ID_CONFIG, "skewer-checkpoint-read");
    byte[] key = ("checkpoint/" + id).getBytes(StandardCharsets.UTF_8);
    TopicPartition tp = new TopicPartition(topic, partition);
    long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.assign(List.of(tp));
      consumer.seek(tp, offset);
      while (System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          if (r.offset() == offset && Arrays.equals(r.key(), key) && r.value() != null) {
            return Optional.of(Checkpoint.decode(r.value()));
          }
          if (r.offset() >= offset) {
            return Optional.empty(); // not there: aborted, compacted away or another id
          }
        }
      }
    }
    throw new KafkaException(
        "reading the checkpoint of "
            + id
            + " at "
            + tp
            + "@"
            + offset
            + " took longer than "
            + READ_TIMEOUT
            + " (an open transaction before it holds read_committed readers back)");
  }

  /** Ids with a checkpoint (for operators and tests). */
  public Set<String> ids() {
    Set<String> ids = new TreeSet<>();
    checkpoints.forEach(
        (id, slot) -> {
          if (FencedSlot.decode(slot).checkpoint() != null) {
            ids.add(id);
          }
        });
    return ids;
  }

  /** Raises the fence and returns it; the checkpoint stays. */
  private static final class NextEpoch implements EntryProcessor<String, byte[], Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public Long process(Map.Entry<String, byte[]> entry) {
      FencedSlot slot = FencedSlot.decode(entry.getValue());
      long next = slot.fence() + 1;
      entry.setValue(new FencedSlot(next, slot.checkpoint()).encode());
      return next;
    }
  }

  /** The fence, read on the entry's owner (no copy of the checkpoint travels). */
  private static final class FenceOf implements EntryProcessor<String, byte[], Long>, ReadOnly {
    private static final long serialVersionUID = 1L;

    @Override
    public Long process(Map.Entry<String, byte[]> entry) {
      return FencedSlot.fenceOf(entry.getValue());
    }

    @Override
    public EntryProcessor<String, byte[], Long> getBackupProcessor() {
      return null;
    }
  }

  /** Writes the checkpoint unless the fence is above its epoch: check and write in one step. */
  private static final class Save implements EntryProcessor<String, byte[], Boolean> {
    private static final long serialVersionUID = 1L;
    private final long epoch;
    private final byte[] checkpoint;

    Save(long epoch, byte[] checkpoint) {
      this.epoch = epoch;
      this.checkpoint = checkpoint;
    }

    @Override
    public Boolean process(Map.Entry<String, byte[]> entry) {
      long fence = FencedSlot.fenceOf(entry.getValue());
      if (fence > epoch) {
        return false;
      }
      entry.setValue(new FencedSlot(Math.max(fence, epoch), checkpoint).encode());
      return true;
    }
  }

  /** Writes {@code key} to the topic and waits for it; null without a topic. */
  private RecordMetadata mirror(String key, byte[] value) {
    if (producer == null) {
      return null;
    }
    try {
      return producer
          .send(new ProducerRecord<>(topic, key.getBytes(StandardCharsets.UTF_8), value))
          .get();
    } catch (ExecutionException e) {
      throw new KafkaException("cannot mirror " + key + " to " + topic, e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaException("interrupted mirroring " + key, e);
    }
  }

  @Override
  public void close() {
    if (producer != null) {
      producer.close(Duration.ofSeconds(10));
    }
  }
}

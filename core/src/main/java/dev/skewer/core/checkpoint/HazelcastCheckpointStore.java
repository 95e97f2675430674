package dev.skewer.core.checkpoint;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.Pipelining;
import com.hazelcast.core.ReadOnly;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.IMap;
import dev.skewer.core.job.JobNames;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.core.kafka.MissingTopicException;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.zip.CRC32;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoints and epochs in the job's Hazelcast IMaps ({@code skewer.<job>.checkpoints}, {@code
 * skewer.<job>.checkpoint-chunks}, {@code skewer.<job>.epochs}, backup count 1; see {@link
 * JobNames}), each write mirrored to a compacted Kafka topic (by default {@code
 * skewer.<job>.checkpoints}; record keys {@code checkpoint/<id>}, {@code chunk/<id>/...} and {@code
 * epoch/<id>}): a checkpoint synchronously, an epoch's record sent without waiting ({@link
 * #takeEpoch}: the owner waits for it before it acts, while it restores). When a store starts and
 * finds the epochs map empty — the whole Hazelcast cluster was lost — it reloads the maps from the
 * topic first, so epochs keep growing and owners resume from their last checkpoints.
 *
 * <p><b>Chunks.</b> A checkpoint whose state fits in one chunk ({@code chunkBytes}, by default
 * {@value #DEFAULT_CHUNK_BYTES}) is stored whole, as one {@link Checkpoint} encoding (format
 * version 1). A larger one is cut into chunks ({@link CheckpointChunks}) written first, under keys
 * unique to that checkpoint, to the chunk map and the topic; then a small {@link
 * CheckpointManifest} (format version 3) goes where the whole checkpoint would have gone. So no map
 * entry and no record is larger than a chunk plus {@value #RECORD_HEADROOM_BYTES} bytes, and no
 * step holds more than the state itself and one chunk. Readers reassemble the state and check its
 * length and CRC32; a missing or corrupt chunk is a {@link CheckpointFormatException}. A save that
 * replaces a chunked checkpoint deletes its chunks from the map and writes tombstones for its chunk
 * records; a refused save deletes its own chunks.
 *
 * <p><b>Fencing is atomic</b>: an id's fence (the highest epoch handed out) and its checkpoint (or
 * manifest) live in one entry of {@code skewer.<job>.checkpoints} ({@link FencedSlot}), and {@link
 * #nextEpoch}, {@link #save} and {@link #cache} are entry processors on it, so a zombie's save
 * either lands before its successor's {@code nextEpoch} or is refused — there is no window between
 * the check and the write. Chunks are written before the manifest, so a successor that sees the
 * manifest finds its chunks. {@code skewer.<job>.epochs} holds a copy of each fence for operators.
 *
 * <p>{@link #save} tells where the mirror's {@code checkpoint/<id>} record was written ({@link
 * Saved}): {@code at_least_once} owners commit that position with their input offset, and a
 * successor whose maps lost the checkpoint (both copies' members died before Hazelcast made new
 * backups) reads it back with {@link #read}.
 *
 * <p>{@code exactly_once} owners write their checkpoints to the same topic under the same keys
 * inside their transactions ({@link #writeTransactional}), read them back with {@code
 * read_committed} ({@link #read}), and keep the maps as a fast copy ({@link #cache}, not mirrored).
 *
 * <p>What can be left behind: the chunks of a save whose owner died (or whose Hazelcast call
 * failed) between its chunks and its manifest are referenced by nothing and never deleted; chunk
 * records of aborted transactions are invisible to {@code read_committed} readers and removed by
 * compaction.
 *
 * <p>Thread-safe; every method blocks (run it on a worker).
 */
public final class HazelcastCheckpointStore implements CheckpointStore {

  private static final Logger LOG = LoggerFactory.getLogger(HazelcastCheckpointStore.class);

  /** The default chunk size: 512 KiB, half of a default topic's 1 MiB {@code max.message.bytes}. */
  public static final int DEFAULT_CHUNK_BYTES = 512 * 1024;

  /** The smallest chunk size accepted (manifests grow by 12 bytes per chunk). */
  public static final int MIN_CHUNK_BYTES = 1024;

  /** The largest chunk size accepted. */
  public static final int MAX_CHUNK_BYTES = 64 * 1024 * 1024;

  /** Room in a record beyond its chunk: key, headers, batch framing, a manifest's positions. */
  public static final int RECORD_HEADROOM_BYTES = 64 * 1024;

  /** The largest record the store writes with the default chunk size. */
  public static final int DEFAULT_MAX_RECORD_BYTES = DEFAULT_CHUNK_BYTES + RECORD_HEADROOM_BYTES;

  /** How long {@link #read} waits for the checkpoint's records to become readable. */
  static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

  /** How long a checkpoint topic just checked or created may take to appear in the metadata. */
  static final Duration METADATA_TIMEOUT = Duration.ofSeconds(30);

  /** How often {@link #load} re-reads a manifest whose chunks a concurrent save deleted. */
  static final int LOAD_ATTEMPTS = 5;

  /** Chunk-map calls in flight at once when writing or deleting a chunked checkpoint's chunks. */
  static final int CHUNK_PIPELINE_DEPTH = 8;

  /** Chunked checkpoints per id remembered for tombstoning in later transactions (oldest drop). */
  private static final int MAX_UNRECLAIMED = 16;

  private final IMap<String, byte[]> checkpoints; // id -> FencedSlot
  private final IMap<String, byte[]> chunks; // CheckpointChunks.mapKey -> chunk
  private final IMap<String, Long> epochs;
  private final int chunkBytes;
  private final KafkaSettings kafka; // null: no Kafka mirror
  private final String topic;
  private final KafkaProducer<byte[], byte[]> producer; // null: no Kafka mirror
  // sends epochs' records in the order they were taken (takeEpoch)
  private final ExecutorService epochRecords =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "skewer-epoch-records");
            t.setDaemon(true);
            return t;
          });
  // exactly_once: chunked checkpoints written (or loaded) whose chunk records a later transaction
  // tombstones; dropped once a later checkpoint's copy is cached (its transaction committed)
  private final Map<String, Deque<CheckpointChunks>> unreclaimed = new ConcurrentHashMap<>();

  private HazelcastCheckpointStore(
      HazelcastInstance hazelcast,
      KafkaSettings kafka,
      JobNames names,
      String topic,
      KafkaProducer<byte[], byte[]> producer,
      int chunkBytes) {
    this.checkpoints = hazelcast.getMap(names.checkpointsMap());
    this.chunks = hazelcast.getMap(names.checkpointChunksMap());
    this.epochs = hazelcast.getMap(names.epochsMap());
    this.chunkBytes = chunkBytes;
    this.kafka = kafka;
    this.topic = topic;
    this.producer = producer;
  }

  /**
   * {@link #create(HazelcastInstance, KafkaSettings, JobNames, String, boolean, int)} with {@value
   * #DEFAULT_CHUNK_BYTES}-byte chunks.
   */
  public static HazelcastCheckpointStore create(
      HazelcastInstance hazelcast,
      KafkaSettings kafka,
      JobNames names,
      String topic,
      boolean provision) {
    return create(hazelcast, kafka, names, topic, provision, DEFAULT_CHUNK_BYTES);
  }

  /**
   * The store of the job {@code names}, mirrored to {@code topic} on {@code kafka}; with {@code
   * kafka == null} Hazelcast only.
   *
   * @param provision create {@code topic} (compacted) when it is missing; false: a missing topic is
   *     a {@link MissingTopicException}
   * @param chunkBytes the chunk size, in [{@value #MIN_CHUNK_BYTES}, {@value #MAX_CHUNK_BYTES}]:
   *     checkpoints with more state are chunked; the topic must accept records of {@link
   *     #maxRecordBytes} of it
   */
  public static HazelcastCheckpointStore create(
      HazelcastInstance hazelcast,
      KafkaSettings kafka,
      JobNames names,
      String topic,
      boolean provision,
      int chunkBytes) {
    if (kafka == null) {
      checkChunkBytes(chunkBytes);
      return new HazelcastCheckpointStore(hazelcast, null, names, null, null, chunkBytes);
    }
    return create(
        hazelcast, names, mirror(kafka, topic, provision, chunkBytes, hazelcast.getName()));
  }

  /**
   * The store of the job {@code names} on {@code hazelcast}, mirrored through {@code mirror} (made
   * beforehand, while the member joined its cluster); the store owns the mirror from here on. When
   * the epochs map is empty the maps are first reloaded from the mirror's topic, read to the end
   * offsets it has now (a topic with nothing to read leaves the maps as they are).
   */
  public static HazelcastCheckpointStore create(
      HazelcastInstance hazelcast, JobNames names, Mirror mirror) {
    HazelcastCheckpointStore store =
        new HazelcastCheckpointStore(
            hazelcast, mirror.kafka, names, mirror.topic, mirror.producer, mirror.chunkBytes);
    try (KafkaConsumer<byte[], byte[]> reload = mirror.reload) {
      // a topic with nothing to read (a new job's) reloads nothing: the maps need not be asked
      List<TopicPartition> parts = partitionsOf(reload, mirror.topic);
      if (hasRecords(reload, parts) && store.epochs.isEmpty()) {
        store.reloadFromTopic(reload, parts);
      }
    }
    return store;
  }

  /**
   * The Kafka side of a store, which needs no Hazelcast member (blocking): {@code topic} checked,
   * or created (compacted) when missing and {@code provision} is true, the producer that mirrors
   * checkpoints to it and the consumer a store reloads it with, both with the topic's metadata. A
   * process makes it while its member joins the cluster, then hands it to {@link
   * #create(HazelcastInstance, JobNames, Mirror)}; one never handed to a store must be closed.
   *
   * @param chunkBytes the chunk size, in [{@value #MIN_CHUNK_BYTES}, {@value #MAX_CHUNK_BYTES}]
   * @param owner names the producer ({@code skewer-checkpoints-<owner>}), e.g. the process id
   * @throws MissingTopicException when the topic is missing and {@code provision} is false
   */
  public static Mirror mirror(
      KafkaSettings kafka, String topic, boolean provision, int chunkBytes, String owner) {
    checkChunkBytes(chunkBytes);
    ensureTopic(kafka, topic, provision, chunkBytes);
    // the reload's consumer first: after the join only what is on the topic then is left to read
    KafkaConsumer<byte[], byte[]> reload = consumer(kafka, chunkBytes, "skewer-checkpoint-reload");
    KafkaProducer<byte[], byte[]> producer = null;
    try {
      // a topic created a moment ago (here or by a process started beside this one) may not be in
      // the broker's metadata yet: wait for it here, quietly, rather than in the producer's first
      // request, which logs a warning and retries
      awaitMetadata(reload, topic);
      Map<String, Object> config = new HashMap<>(kafka.producerConfig());
      config.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, maxRecordBytes(chunkBytes));
      config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
      config.put(ProducerConfig.CLIENT_ID_CONFIG, "skewer-checkpoints-" + owner);
      producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
      // the topic's metadata now, not on the first take-over's epoch record (which waits for it)
      producer.partitionsFor(topic);
    } catch (KafkaException e) {
      reload.close(Duration.ZERO);
      if (producer != null) {
        producer.close(Duration.ZERO);
      }
      throw new KafkaException("cannot read the metadata of checkpoint topic " + topic, e);
    }
    return new Mirror(kafka, topic, chunkBytes, producer, reload);
  }

  /**
   * Waits until the broker's metadata has {@code topic} (which exists: it was just checked or
   * created), at most {@link #METADATA_TIMEOUT}.
   */
  private static void awaitMetadata(KafkaConsumer<byte[], byte[]> consumer, String topic) {
    long deadlineNs = System.nanoTime() + METADATA_TIMEOUT.toNanos();
    while (consumer.partitionsFor(topic).isEmpty()) {
      if (System.nanoTime() > deadlineNs) {
        throw new KafkaException(
            "the broker's metadata still has no topic " + topic + " after " + METADATA_TIMEOUT);
      }
      try {
        Thread.sleep(20); // metadata propagation, not synchronisation
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new KafkaException("interrupted waiting for the metadata of topic " + topic, e);
      }
    }
  }

  private static void checkChunkBytes(int chunkBytes) {
    if (chunkBytes < MIN_CHUNK_BYTES || chunkBytes > MAX_CHUNK_BYTES) {
      throw new IllegalArgumentException(
          "chunkBytes must be in ["
              + MIN_CHUNK_BYTES
              + ", "
              + MAX_CHUNK_BYTES
              + "], was "
              + chunkBytes);
    }
  }

  /**
   * A store's checkpoint topic, checked or created, its producer and the consumer a store reloads
   * it with: what {@link #mirror} makes before the member has joined. Closing it closes both (only
   * for one never given to a store).
   */
  public static final class Mirror implements AutoCloseable {
    private final KafkaSettings kafka;
    private final String topic;
    private final int chunkBytes;
    private final KafkaProducer<byte[], byte[]> producer;
    private final KafkaConsumer<byte[], byte[]> reload;

    private Mirror(
        KafkaSettings kafka,
        String topic,
        int chunkBytes,
        KafkaProducer<byte[], byte[]> producer,
        KafkaConsumer<byte[], byte[]> reload) {
      this.kafka = kafka;
      this.topic = topic;
      this.chunkBytes = chunkBytes;
      this.producer = producer;
      this.reload = reload;
    }

    @Override
    public void close() {
      producer.close(Duration.ZERO);
      reload.close(Duration.ZERO);
    }
  }

  /**
   * Refuses an existing checkpoint topic that cannot take this store's largest record: its {@code
   * max.message.bytes} (the topic's own or the broker's default) must be at least {@link
   * #maxRecordBytes} of {@code chunkBytes}, or every chunked checkpoint would fail to be mirrored.
   * A principal without {@code DescribeConfigs} on the topic (not in the ACLs docs/deploy.md lists)
   * skips the check with a warning: the first mirrored chunk then reports a topic too small.
   *
   * @throws InvalidConfigurationException naming the topic, both sizes and the two ways out
   */
  private static void checkRecordSize(Admin admin, String topic, int chunkBytes)
      throws ExecutionException, InterruptedException {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    Config config;
    try {
      config = admin.describeConfigs(List.of(resource)).all().get().get(resource);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof AuthorizationException) {
        LOG.warn(
            "cannot read max.message.bytes of checkpoint topic {} ({}): not checked against"
                + " chunks of {} bytes",
            topic,
            e.getCause().getMessage(),
            chunkBytes);
        return;
      }
      throw e;
    }
    ConfigEntry limit = config == null ? null : config.get("max.message.bytes");
    if (limit == null || limit.value() == null) {
      return; // not reported: the first mirrored chunk will say it if it is too small
    }
    long accepted = Long.parseLong(limit.value().trim());
    int needed = maxRecordBytes(chunkBytes);
    if (accepted < needed) {
      throw new InvalidConfigurationException(
          "checkpoint topic "
              + topic
              + " accepts records of at most "
              + accepted
              + " bytes (max.message.bytes), but checkpoint chunks of "
              + chunkBytes
              + " bytes need "
              + needed
              + ": lower --checkpoint-chunk-bytes to at most "
              + (accepted - RECORD_HEADROOM_BYTES)
              + " or raise the topic's max.message.bytes to "
              + needed);
    }
  }

  /** The largest record a store with {@code chunkBytes} chunks writes: a chunk plus headroom. */
  public static int maxRecordBytes(int chunkBytes) {
    return chunkBytes + RECORD_HEADROOM_BYTES;
  }

  /**
   * Creates the compacted checkpoint topic (1 partition, {@code max.message.bytes} = {@link
   * #DEFAULT_MAX_RECORD_BYTES}) unless it exists; with {@code provision} false only checks it.
   * Blocking.
   *
   * @throws MissingTopicException when it is missing and {@code provision} is false
   */
  public static void ensureTopic(KafkaSettings kafka, String topic, boolean provision) {
    ensureTopic(kafka, topic, provision, DEFAULT_CHUNK_BYTES);
  }

  private static void ensureTopic(
      KafkaSettings kafka, String topic, boolean provision, int chunkBytes) {
    try (Admin admin = Admin.create(kafka.adminConfig())) {
      if (admin.listTopics().names().get().contains(topic)) {
        checkRecordSize(admin, topic, chunkBytes);
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
                      "max.message.bytes", Integer.toString(maxRecordBytes(chunkBytes)),
                      "segment.bytes", Integer.toString(64 * 1024 * 1024),
                      "segment.ms", "600000",
                      "min.cleanable.dirty.ratio", "0.1"));
      admin.createTopics(List.of(t)).all().get();
      LOG.info("created compacted checkpoint topic {}", topic);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new KafkaException("cannot create or check checkpoint topic " + topic, e.getCause());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaException("interrupted creating checkpoint topic " + topic, e);
    }
  }

  /** The chunk size of this store. */
  public int chunkBytes() {
    return chunkBytes;
  }

  /** A chunk and its header when mirrored to a topic; 0 without one. */
  @Override
  public int maxRecordBytes() {
    return topic == null ? 0 : maxRecordBytes(chunkBytes);
  }

  /**
   * A {@code read_committed} consumer of the topic without a group, fetching about two records at a
   * time (an older, larger unchunked record is still returned whole: a fetch always returns its
   * first batch).
   */
  private KafkaConsumer<byte[], byte[]> consumer(String clientId) {
    return consumer(kafka, chunkBytes, clientId);
  }

  private static KafkaConsumer<byte[], byte[]> consumer(
      KafkaSettings kafka, int chunkBytes, String clientId) {
    Map<String, Object> config = new HashMap<>(kafka.consumerConfig(null));
    config.remove(ConsumerConfig.GROUP_ID_CONFIG);
    config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 2 * maxRecordBytes(chunkBytes));
    config.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 2 * maxRecordBytes(chunkBytes));
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    config.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
    return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  /** The partitions of {@code topic}, as the broker's metadata has them. */
  private static List<TopicPartition> partitionsOf(
      KafkaConsumer<byte[], byte[]> consumer, String topic) {
    List<TopicPartition> parts = new ArrayList<>();
    consumer.partitionsFor(topic).forEach(p -> parts.add(new TopicPartition(topic, p.partition())));
    return parts;
  }

  /** Whether one of {@code parts} has a record (or a transaction marker) between start and end. */
  private static boolean hasRecords(
      KafkaConsumer<byte[], byte[]> consumer, List<TopicPartition> parts) {
    Map<TopicPartition, Long> start = consumer.beginningOffsets(parts);
    Map<TopicPartition, Long> end = consumer.endOffsets(parts);
    return parts.stream().anyMatch(tp -> start.get(tp) < end.get(tp));
  }

  /**
   * Loads the latest epoch and checkpoint of every id from the topic into empty maps: one pass over
   * the topic keeping the latest epoch and checkpoint (or manifest) records, then each manifest's
   * chunks read by position into the chunk map, checked against its CRC.
   */
  private void reloadFromTopic(KafkaConsumer<byte[], byte[]> consumer, List<TopicPartition> parts) {
    Map<String, byte[]> latest = new HashMap<>();
    long startNs = System.nanoTime();
    consumer.assign(parts);
    consumer.seekToBeginning(parts);
    Map<TopicPartition, Long> end = consumer.endOffsets(parts);
    while (parts.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
        String key = new String(r.key(), StandardCharsets.UTF_8);
        if (key.startsWith(CheckpointChunks.RECORD_PREFIX)) {
          continue; // read by position below, for the manifests that name them
        }
        if (r.value() == null) {
          latest.remove(key);
        } else {
          latest.put(key, r.value());
        }
      }
    }
    Map<String, Long> fences = new HashMap<>();
    Map<String, byte[]> latestCheckpoints = new HashMap<>();
    int loaded = 0;
    int chunksLoaded = 0;
    long deadlineNs = System.nanoTime() + READ_TIMEOUT.toNanos();
    for (Map.Entry<String, byte[]> e : latest.entrySet()) {
      String key = e.getKey();
      if (key.startsWith("epoch/")) {
        fences.merge(key.substring(6), ByteBuffer.wrap(e.getValue()).getLong(), Math::max);
        loaded++;
      } else if (key.startsWith("checkpoint/")) {
        String id = key.substring(11);
        long epoch;
        if (CheckpointManifest.isManifest(e.getValue())) {
          CheckpointManifest m = CheckpointManifest.decode(e.getValue());
          CheckpointChunks c = CheckpointChunks.of(id, m);
          CRC32 crc = new CRC32();
          readChunks(
              consumer,
              id,
              m,
              (i, chunk) -> {
                crc.update(chunk);
                chunks.set(c.mapKey(i), chunk);
              },
              deadlineNs);
          StateAssembly.verify(id, m, crc);
          chunksLoaded += c.count();
          epoch = m.epoch();
        } else {
          epoch = Checkpoint.decode(e.getValue()).epoch();
        }
        latestCheckpoints.put(id, e.getValue());
        fences.merge(id, epoch, Math::max);
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
          "reloaded {} epochs and checkpoints ({} chunks) from topic {} in {} ms",
          loaded,
          chunksLoaded,
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
    return takeEpoch(id).awaitRecorded();
  }

  /**
   * The fence moves in the slot (saves of lower epochs are refused from now on); the epoch's {@code
   * epoch/<id>} record, what a store reloads its fences from after the whole Hazelcast cluster was
   * lost, is sent and not waited for: {@link TakenEpoch#recorded} completes when the topic has it.
   */
  @Override
  public TakenEpoch takeEpoch(String id) {
    long next = checkpoints.executeOnKey(id, new NextEpoch());
    epochs.set(id, next); // for operators; the fence in the slot is what save checks
    if (producer == null) {
      return TakenEpoch.recorded(next);
    }
    CompletableFuture<Void> recorded = new CompletableFuture<>();
    ProducerRecord<byte[], byte[]> record =
        new ProducerRecord<>(
            topic,
            ("epoch/" + id).getBytes(StandardCharsets.UTF_8),
            ByteBuffer.allocate(8).putLong(next).array());
    // sent from a thread of its own: a first send waits for the topic's metadata
    epochRecords.execute(
        () -> {
          try {
            producer.send(
                record,
                (metadata, error) -> {
                  if (error == null) {
                    recorded.complete(null);
                  } else {
                    recorded.completeExceptionally(epochNotWritten(next, id, error));
                  }
                });
          } catch (RuntimeException e) {
            recorded.completeExceptionally(epochNotWritten(next, id, e));
          }
        });
    return new TakenEpoch(next, recorded);
  }

  private KafkaException epochNotWritten(long epoch, String id, Throwable cause) {
    return new KafkaException("cannot write epoch " + epoch + " of " + id + " to " + topic, cause);
  }

  @Override
  public long currentEpoch(String id) {
    return checkpoints.executeOnKey(id, new FenceOf());
  }

  /**
   * The latest checkpoint of {@code id}. A chunked one is reassembled from the chunk map; when a
   * chunk is missing because a concurrent save replaced the checkpoint (and deleted its chunks),
   * the manifest is read again, up to {@value #LOAD_ATTEMPTS} times.
   *
   * @throws CheckpointFormatException when a chunk is missing or the state does not match its
   *     manifest
   */
  @Override
  public Optional<Checkpoint> load(String id) {
    byte[] encoded = FencedSlot.decode(checkpoints.get(id)).checkpoint();
    for (int attempt = 1; ; attempt++) {
      if (encoded == null) {
        return Optional.empty();
      }
      if (!CheckpointManifest.isManifest(encoded)) {
        return Optional.of(Checkpoint.decode(encoded));
      }
      CheckpointManifest manifest = CheckpointManifest.decode(encoded);
      StateAssembly assembly = new StateAssembly(id, manifest);
      CheckpointChunks c = CheckpointChunks.of(id, manifest);
      for (int i = 0; i < c.count(); i++) {
        byte[] chunk = chunks.get(c.mapKey(i));
        if (chunk == null) {
          break;
        }
        assembly.add(chunk);
      }
      if (assembly.nextIndex() == c.count()) {
        remember(id, c);
        return Optional.of(assembly.checkpoint());
      }
      byte[] now = FencedSlot.decode(checkpoints.get(id)).checkpoint();
      if (Arrays.equals(now, encoded) || attempt >= LOAD_ATTEMPTS) {
        throw new CheckpointFormatException(
            manifest.describe(id)
                + ": chunk "
                + c.mapKey(assembly.nextIndex())
                + " of "
                + c.count()
                + " is missing from the chunk map"
                + (attempt >= LOAD_ATTEMPTS ? " after " + attempt + " attempts" : ""));
      }
      encoded = now; // replaced meanwhile: its chunks were deleted; read the new one
    }
  }

  @Override
  public Saved save(String id, Checkpoint checkpoint) {
    return store(id, checkpoint, true);
  }

  @Override
  public boolean cache(String id, Checkpoint checkpoint) {
    boolean accepted = store(id, checkpoint, false).accepted();
    if (accepted) {
      forgetOlderThan(id, checkpoint); // its transaction, which tombstoned them, committed
    }
    return accepted;
  }

  /**
   * Chunks (if the state is larger than a chunk) into the chunk map, then the checkpoint or its
   * manifest into the fenced slot; a refused one's chunks are deleted, an accepted one deletes the
   * chunks of the one it replaced. With {@code mirror} and a topic, then writes the same to the
   * topic — chunk records first, the {@code checkpoint/<id>} record last — and tombstones the
   * replaced checkpoint's chunk records.
   */
  private Saved store(String id, Checkpoint checkpoint, boolean mirror) {
    byte[] state = checkpoint.state();
    boolean chunked = state.length > chunkBytes;
    CheckpointManifest manifest = chunked ? CheckpointManifest.of(checkpoint, chunkBytes) : null;
    CheckpointChunks own = chunked ? CheckpointChunks.of(id, manifest) : null;
    byte[] slotValue;
    if (chunked) {
      pipelined(own, i -> chunks.setAsync(own.mapKey(i), own.slice(state, i)));
      slotValue = manifest.encode();
    } else {
      slotValue = checkpoint.encode();
    }
    // an exception here leaves the outcome unknown: the chunks stay (they may be the checkpoint's)
    SaveOutcome outcome = checkpoints.executeOnKey(id, new Save(checkpoint.epoch(), slotValue));
    CheckpointChunks previous =
        outcome.previousManifest() == null
            ? null
            : CheckpointChunks.of(id, CheckpointManifest.decode(outcome.previousManifest()));
    boolean replacedOther = previous != null && !previous.sameCheckpoint(own);
    if (!outcome.accepted()) {
      if (chunked && !own.sameCheckpoint(previous)) {
        deleteChunks(own);
      }
      return Saved.REFUSED;
    }
    if (replacedOther) {
      deleteChunks(previous);
    }
    if (!mirror || producer == null) {
      return Saved.UNLOGGED;
    }
    RecordMetadata at;
    if (chunked) {
      List<LogPosition> positions = sendChunks(producer, own, state);
      at = await(send(producer, checkpointKey(id), manifest.withPositions(positions).encode()), id);
    } else {
      at = await(send(producer, checkpointKey(id), slotValue), id);
    }
    if (replacedOther) {
      tombstone(producer, previous);
    }
    return Saved.logged(at.partition(), at.offset());
  }

  /**
   * Writes the checkpoint through {@code transactionalProducer} (inside its open transaction):
   * chunk records first, then the {@code checkpoint/<id>} record (the whole checkpoint, or the
   * manifest naming the chunks' positions), then tombstones for the chunk records of the chunked
   * checkpoints of {@code id} this store wrote or loaded before — safe, as they become visible only
   * if this transaction commits, which makes this checkpoint the one its committed offset names.
   */
  @Override
  public Optional<RecordMetadata> writeTransactional(
      String id, Checkpoint checkpoint, Producer<byte[], byte[]> transactionalProducer) {
    if (topic == null) {
      return Optional.empty();
    }
    byte[] state = checkpoint.state();
    RecordMetadata at;
    CheckpointChunks own = null;
    if (state.length > chunkBytes) {
      CheckpointManifest manifest = CheckpointManifest.of(checkpoint, chunkBytes);
      own = CheckpointChunks.of(id, manifest);
      List<LogPosition> positions = sendChunks(transactionalProducer, own, state);
      at =
          await(
              send(
                  transactionalProducer,
                  checkpointKey(id),
                  manifest.withPositions(positions).encode()),
              id);
    } else {
      at = await(send(transactionalProducer, checkpointKey(id), checkpoint.encode()), id);
    }
    for (CheckpointChunks earlier : unreclaimedBefore(id, own)) {
      tombstone(transactionalProducer, earlier);
    }
    return Optional.of(at);
  }

  /**
   * The checkpoint whose {@code checkpoint/<id>} record is at {@code offset} of {@code partition};
   * a manifest's chunks are read by the positions it names and checked against its CRC.
   *
   * @throws CheckpointFormatException when the record or one of its chunks is missing or malformed
   */
  @Override
  public Optional<Checkpoint> read(String id, int partition, long offset) {
    if (topic == null) {
      return Optional.empty();
    }
    byte[] key = checkpointKey(id);
    TopicPartition tp = new TopicPartition(topic, partition);
    long deadlineNs = System.nanoTime() + READ_TIMEOUT.toNanos();
    try (KafkaConsumer<byte[], byte[]> consumer = consumer("skewer-checkpoint-read")) {
      consumer.assign(List.of(tp));
      consumer.seek(tp, offset);
      while (System.nanoTime() < deadlineNs) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          if (r.offset() == offset && Arrays.equals(r.key(), key) && r.value() != null) {
            if (!CheckpointManifest.isManifest(r.value())) {
              return Optional.of(Checkpoint.decode(r.value()));
            }
            CheckpointManifest manifest = CheckpointManifest.decode(r.value());
            StateAssembly assembly = new StateAssembly(id, manifest);
            readChunks(consumer, id, manifest, (i, chunk) -> assembly.add(chunk), deadlineNs);
            remember(id, CheckpointChunks.of(id, manifest));
            return Optional.of(assembly.checkpoint());
          }
          if (r.offset() >= offset) {
            return Optional.empty(); // not there: aborted, compacted away or another id
          }
        }
      }
    }
    throw readTimeout(id, tp + "@" + offset);
  }

  /** Receives chunk {@code i}'s bytes, in order of {@code i}. */
  @FunctionalInterface
  private interface ChunkSink {
    void accept(int i, byte[] chunk);
  }

  /**
   * Reads {@code manifest}'s chunks with {@code consumer}, in order, by the positions it names:
   * records between the chunks (other ids' records) are skipped, a record at a chunk's position
   * with another key, or a position passed (compacted away), is a missing chunk.
   */
  private void readChunks(
      KafkaConsumer<byte[], byte[]> consumer,
      String id,
      CheckpointManifest manifest,
      ChunkSink sink,
      long deadlineNs) {
    CheckpointChunks c = CheckpointChunks.of(id, manifest);
    if (manifest.positions().size() != c.count()) {
      throw new CheckpointFormatException(
          "checkpoint manifest of " + id + " in topic " + topic + " names no chunk positions");
    }
    Deque<ConsumerRecord<byte[], byte[]>> buffered = new ArrayDeque<>();
    TopicPartition at = null;
    for (int i = 0; i < c.count(); i++) {
      LogPosition p = manifest.positions().get(i);
      TopicPartition tp = new TopicPartition(topic, p.partition());
      while (!buffered.isEmpty()
          && buffered.peekFirst().partition() == p.partition()
          && buffered.peekFirst().offset() < p.offset()) {
        buffered.pollFirst();
      }
      boolean behind = buffered.isEmpty() && tp.equals(at) && consumer.position(tp) > p.offset();
      boolean ahead = !buffered.isEmpty() && buffered.peekFirst().offset() > p.offset();
      if (!tp.equals(at) || behind || ahead) {
        consumer.assign(List.of(tp));
        consumer.seek(tp, p.offset());
        buffered.clear();
        at = tp;
      }
      while (buffered.isEmpty()) {
        if (System.nanoTime() >= deadlineNs) {
          throw readTimeout(id, "chunk " + i + " at " + topic + "-" + p);
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          if (r.offset() >= p.offset()) {
            buffered.addLast(r);
          }
        }
      }
      ConsumerRecord<byte[], byte[]> r = buffered.pollFirst();
      if (r.offset() != p.offset()
          || !Arrays.equals(r.key(), c.recordKey(i))
          || r.value() == null) {
        throw new CheckpointFormatException(
            manifest.describe(id)
                + ": chunk "
                + i
                + " of "
                + c.count()
                + " is missing from "
                + topic
                + "-"
                + p
                + " (found "
                + (r.offset() != p.offset()
                    ? "the next record at offset " + r.offset()
                    : new String(r.key(), StandardCharsets.UTF_8)
                        + (r.value() == null ? " (a tombstone)" : ""))
                + ")");
      }
      sink.accept(i, r.value());
    }
  }

  private KafkaException readTimeout(String id, String where) {
    return new KafkaException(
        "reading the checkpoint of "
            + id
            + " at "
            + where
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

  /** Keys of the chunk map (for operators and tests). */
  public Set<String> chunkKeys() {
    return new TreeSet<>(chunks.keySet());
  }

  private void deleteChunks(CheckpointChunks c) {
    pipelined(c, i -> chunks.deleteAsync(c.mapKey(i)));
  }

  /**
   * Makes {@code call} for every chunk of {@code c}, with up to {@value #CHUNK_PIPELINE_DEPTH}
   * calls in flight (so the round trips to the members overlap while only that many chunk copies
   * are held), and waits for all of them.
   *
   * @throws RuntimeException the first failed call's exception, as the synchronous call would
   */
  private static void pipelined(CheckpointChunks c, IntFunction<CompletionStage<?>> call) {
    Pipelining<Object> pipeline = new Pipelining<>(CHUNK_PIPELINE_DEPTH);
    try {
      for (int i = 0; i < c.count(); i++) {
        pipeline.add(call.apply(i).thenApply(done -> (Object) done));
      }
      pipeline.results();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted during checkpoint chunk calls", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException("a checkpoint chunk call failed", e.getCause());
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("a checkpoint chunk call failed", e);
    }
  }

  /**
   * Sends {@code state}'s chunks, one chunk-sized copy at a time, and waits for their positions.
   */
  private List<LogPosition> sendChunks(
      Producer<byte[], byte[]> to, CheckpointChunks c, byte[] state) {
    List<Future<RecordMetadata>> sent = new ArrayList<>(c.count());
    for (int i = 0; i < c.count(); i++) {
      sent.add(send(to, c.recordKey(i), c.slice(state, i)));
    }
    List<LogPosition> positions = new ArrayList<>(c.count());
    for (Future<RecordMetadata> f : sent) {
      RecordMetadata m = await(f, c.id());
      positions.add(new LogPosition(m.partition(), m.offset()));
    }
    return positions;
  }

  /** Null values for {@code c}'s chunk records, so that compaction removes them; not awaited. */
  private void tombstone(Producer<byte[], byte[]> to, CheckpointChunks c) {
    for (int i = 0; i < c.count(); i++) {
      to.send(
          new ProducerRecord<>(topic, c.recordKey(i), null),
          (meta, e) -> {
            if (e != null) {
              LOG.warn(
                  "cannot tombstone a replaced checkpoint chunk in {}: {}", topic, e.toString());
            }
          });
    }
  }

  private Future<RecordMetadata> send(Producer<byte[], byte[]> to, byte[] key, byte[] value) {
    return to.send(new ProducerRecord<>(topic, key, value));
  }

  private RecordMetadata await(Future<RecordMetadata> f, String id) {
    try {
      return f.get();
    } catch (ExecutionException e) {
      throw new KafkaException(
          "cannot write the checkpoint of " + id + " to " + topic, e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaException("interrupted writing the checkpoint of " + id, e);
    }
  }

  private static byte[] checkpointKey(String id) {
    return ("checkpoint/" + id).getBytes(StandardCharsets.UTF_8);
  }

  /** Remembers a chunked checkpoint of {@code id} whose chunk records a later transaction drops. */
  private void remember(String id, CheckpointChunks c) {
    Deque<CheckpointChunks> list = unreclaimed.computeIfAbsent(id, k -> new ArrayDeque<>());
    synchronized (list) {
      if (list.stream().noneMatch(c::sameCheckpoint)) {
        list.addLast(c);
        if (list.size() > MAX_UNRECLAIMED) {
          list.pollFirst(); // its chunk records stay until someone deletes the topic's keys
        }
      }
    }
  }

  /** The remembered checkpoints of {@code id} other than {@code current}; remembers current. */
  private List<CheckpointChunks> unreclaimedBefore(String id, CheckpointChunks current) {
    Deque<CheckpointChunks> list = unreclaimed.computeIfAbsent(id, k -> new ArrayDeque<>());
    synchronized (list) {
      List<CheckpointChunks> earlier = new ArrayList<>();
      for (CheckpointChunks c : list) {
        if (!c.sameCheckpoint(current)) {
          earlier.add(c);
        }
      }
      if (current != null) {
        remember(id, current);
      }
      return earlier;
    }
  }

  /** Forgets the remembered checkpoints of {@code id} older than {@code committed}. */
  private void forgetOlderThan(String id, Checkpoint committed) {
    Deque<CheckpointChunks> list = unreclaimed.get(id);
    if (list == null) {
      return;
    }
    synchronized (list) {
      list.removeIf(
          c ->
              c.epoch() < committed.epoch()
                  || (c.epoch() == committed.epoch() && c.createdMs() < committed.createdMs()));
    }
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

  /**
   * What {@link Save} did, and the manifest of the checkpoint that was in the slot (null when it
   * held none or an unchunked one): replaced when accepted, kept when refused.
   */
  record SaveOutcome(boolean accepted, byte[] previousManifest) implements Serializable {
    private static final long serialVersionUID = 1L;
  }

  /**
   * Writes the checkpoint (or manifest) unless the fence is above its epoch: check and write in one
   * step.
   */
  private static final class Save implements EntryProcessor<String, byte[], SaveOutcome> {
    private static final long serialVersionUID = 1L;
    private final long epoch;
    private final byte[] checkpoint;

    Save(long epoch, byte[] checkpoint) {
      this.epoch = epoch;
      this.checkpoint = checkpoint;
    }

    @Override
    public SaveOutcome process(Map.Entry<String, byte[]> entry) {
      long fence = FencedSlot.fenceOf(entry.getValue());
      byte[] previousManifest = FencedSlot.manifestOf(entry.getValue());
      if (fence > epoch) {
        return new SaveOutcome(false, previousManifest);
      }
      entry.setValue(new FencedSlot(Math.max(fence, epoch), checkpoint).encode());
      return new SaveOutcome(true, previousManifest);
    }
  }

  @Override
  public void close() {
    epochRecords.shutdown(); // the records it was given are sent (the producer waits for them)
    try {
      epochRecords.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (producer != null) {
      producer.close(Duration.ofSeconds(10));
    }
  }
}

package dev.skewer.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.core.checkpoint.Checkpoint;
import dev.skewer.core.checkpoint.CheckpointChunks;
import dev.skewer.core.checkpoint.CheckpointFormatException;
import dev.skewer.core.checkpoint.CheckpointManifest;
import dev.skewer.core.checkpoint.HazelcastCheckpointStore;
import dev.skewer.core.checkpoint.LogPosition;
import dev.skewer.core.checkpoint.Saved;
import dev.skewer.core.checkpoint.TakenEpoch;
import dev.skewer.core.cluster.ClusterSettings;
import dev.skewer.core.cluster.HazelcastMembers;
import dev.skewer.core.job.JobNames;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.core.net.FreePorts;
import dev.skewer.testkit.kafka.EmbeddedKafka;
import dev.skewer.testkit.kafka.TopicReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The chunked checkpoint store on a real KRaft broker and real Hazelcast members, with 1 KiB
 * chunks: round trips through the maps and through the topic (at the position a save or a
 * transaction returns), tombstones for replaced chunks, the reload of a lost Hazelcast cluster from
 * the topic, and clear errors for missing or corrupt chunks. Ordered: the reload reads every
 * checkpoint the earlier tests left in the topic.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ChunkedCheckpointTopicIT {

  private static final int CHUNK = HazelcastCheckpointStore.MIN_CHUNK_BYTES;
  private static final JobNames NAMES = JobNames.of("chunks-it");
  private static final String TOPIC = "chunks-it.checkpoints";
  private static final Duration READ = Duration.ofSeconds(30);

  private EmbeddedKafka kafka;
  private final List<HazelcastInstance> members = new ArrayList<>();
  private HazelcastCheckpointStore store;
  private final Map<String, Checkpoint> latest = new HashMap<>();

  @BeforeAll
  void start() {
    kafka = EmbeddedKafka.start();
    store = storeOn(member());
  }

  @AfterAll
  void stop() {
    if (store != null) {
      store.close();
    }
    members.forEach(m -> m.getLifecycleService().terminate());
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  @Order(1)
  void shouldSaveLoadAndReadBackEverySizeAroundTheChunkBoundary() {
    for (int size : new int[] {0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 9 * CHUNK + 17}) {
      // given
      String id = "node/sizes/" + size;
      Checkpoint cp = new Checkpoint(store.nextEpoch(id), size, 100, random(size, size));

      // when
      Saved saved = store.save(id, cp);
      latest.put(id, cp);

      // then
      assertThat(saved.hasLog()).isTrue();
      assertThat(store.load(id)).as("load, size %d", size).contains(cp);
      assertThat(store.read(id, saved.logPartition(), saved.logOffset()))
          .as("read back, size %d", size)
          .contains(cp);
    }
  }

  @Test
  @Order(2)
  void shouldTombstoneTheChunkRecordsOfAReplacedCheckpoint() {
    // given
    String id = "node/replaced/0";
    long epoch = store.nextEpoch(id);
    Checkpoint a = new Checkpoint(epoch, 1, 1, random(3 * CHUNK, 1));
    Checkpoint b = new Checkpoint(epoch, 2, 2, random(2 * CHUNK + 1, 2));
    store.save(id, a);

    // when
    Saved saved = store.save(id, b);
    latest.put(id, b);

    // then
    Map<String, byte[]> last = lastValues();
    for (int i = 0; i < 3; i++) {
      assertThat(last).containsEntry("chunk/" + id + "/" + epoch + "/1/" + i, null);
      assertThat(last.get("chunk/" + id + "/" + epoch + "/2/" + i)).isNotNull();
    }
    assertThat(store.chunkKeys())
        .filteredOn(k -> k.startsWith(id + "/"))
        .hasSize(3)
        .allMatch(k -> k.startsWith(id + "/" + epoch + "/2/"));
    assertThat(store.read(id, saved.logPartition(), saved.logOffset())).contains(b);
  }

  @Test
  @Order(3)
  void shouldWriteCheckpointsInTransactionsAndTombstoneTheOnesTheyReplace() {
    String id = "coordinator/eos/0";
    long epoch = store.nextEpoch(id);
    Checkpoint first = new Checkpoint(epoch, 10, 10, random(4 * CHUNK, 10));
    Checkpoint second = new Checkpoint(epoch, 20, 20, random(2 * CHUNK + 3, 20));
    Checkpoint aborted = new Checkpoint(epoch, 30, 30, random(5 * CHUNK, 30));
    try (KafkaProducer<byte[], byte[]> producer = transactional("chunks-it-eos")) {
      producer.initTransactions();
      // given a committed chunked checkpoint
      producer.beginTransaction();
      RecordMetadata at1 = store.writeTransactional(id, first, producer).orElseThrow();
      producer.commitTransaction();
      assertThat(store.read(id, at1.partition(), at1.offset())).contains(first);

      // when the next transaction writes another one, and a third is aborted
      producer.beginTransaction();
      RecordMetadata at2 = store.writeTransactional(id, second, producer).orElseThrow();
      producer.commitTransaction();
      producer.beginTransaction();
      store.writeTransactional(id, aborted, producer).orElseThrow();
      producer.abortTransaction();
    }
    latest.put(id, second);
    assertThat(store.cache(id, second)).isTrue();

    // then the committed ones read back, the first one's chunks are tombstoned, the aborted one's
    // invisible
    Map<String, byte[]> last = lastValues();
    for (int i = 0; i < 4; i++) {
      assertThat(last).containsEntry("chunk/" + id + "/" + epoch + "/10/" + i, null);
    }
    assertThat(last.keySet()).noneMatch(k -> k.startsWith("chunk/" + id + "/" + epoch + "/30/"));
    assertThat(last.get("chunk/" + id + "/" + epoch + "/20/0")).isNotNull();
    assertThat(store.load(id)).contains(second);
  }

  @Test
  @Order(4)
  void shouldReloadEveryCheckpointFromTheTopicWhenHazelcastIsLost() throws Exception {
    // given epochs taken without a checkpoint since, their records sent without waiting
    String epochOnly = "node/epochs-only/0";
    TakenEpoch first = store.takeEpoch(epochOnly);
    TakenEpoch second = store.takeEpoch(epochOnly);
    assertThat(second.value()).isEqualTo(first.value() + 1);
    second.recorded().get(30, TimeUnit.SECONDS);

    // and a new Hazelcast cluster: empty maps
    try (HazelcastCheckpointStore reloaded = storeOn(member())) {
      // then every latest checkpoint is back, chunks included, and every fence
      for (Map.Entry<String, Checkpoint> e : latest.entrySet()) {
        assertThat(reloaded.load(e.getKey())).as(e.getKey()).contains(e.getValue());
        assertThat(reloaded.currentEpoch(e.getKey())).isEqualTo(e.getValue().epoch());
      }
      assertThat(reloaded.chunkKeys()).hasSameElementsAs(store.chunkKeys());
      assertThat(reloaded.currentEpoch(epochOnly)).isEqualTo(second.value());
      assertThat(reloaded.nextEpoch(epochOnly)).isEqualTo(second.value() + 1);
    }
  }

  @Test
  @Order(5)
  void shouldNameAMissingOrCorruptChunkWhenReadingBack() throws Exception {
    // given a chunked checkpoint in the topic, its three chunks right before its manifest
    String id = "node/broken/0";
    Checkpoint cp = new Checkpoint(store.nextEpoch(id), 1, 1, random(3 * CHUNK, 7));
    Saved saved = store.save(id, cp);
    List<LogPosition> chunks = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      chunks.add(new LogPosition(saved.logPartition(), saved.logOffset() - 3 + i));
    }
    CheckpointManifest manifest = CheckpointManifest.of(cp, CHUNK).withPositions(chunks);
    assertThat(CheckpointChunks.of(id, manifest).count()).isEqualTo(3);
    try (KafkaProducer<byte[], byte[]> producer = plain()) {
      // when its manifest's CRC is wrong
      CheckpointManifest badCrc =
          new CheckpointManifest(
              cp.epoch(), 1, 1, cp.state().length, manifest.stateCrc32() ^ 1, CHUNK, chunks);
      RecordMetadata crcAt = producer.send(manifestRecord(id, badCrc)).get();
      // when its manifest names the wrong positions
      List<LogPosition> shifted = new ArrayList<>(chunks.subList(1, 3));
      shifted.add(new LogPosition(saved.logPartition(), saved.logOffset()));
      RecordMetadata missingAt =
          producer.send(manifestRecord(id, manifest.withPositions(shifted))).get();
      // (tombstoned again, so the reload of another test never meets them)
      producer.send(new ProducerRecord<>(TOPIC, key(id), null)).get();

      // then
      assertThatThrownBy(() -> store.read(id, crcAt.partition(), crcAt.offset()))
          .isInstanceOf(CheckpointFormatException.class)
          .hasMessageContaining("CRC32");
      assertThatThrownBy(() -> store.read(id, missingAt.partition(), missingAt.offset()))
          .isInstanceOf(CheckpointFormatException.class)
          .hasMessageContaining("chunk 0 of 3 is missing from " + TOPIC);
    }
  }

  @Test
  @Order(6)
  void shouldRefuseChunksLargerThanTheExistingTopicAccepts() {
    // the topic was created for 1 KiB chunks: max.message.bytes = 1 KiB + 64 KiB
    int needed =
        HazelcastCheckpointStore.maxRecordBytes(HazelcastCheckpointStore.DEFAULT_CHUNK_BYTES);

    assertThatThrownBy(
            () ->
                HazelcastCheckpointStore.create(
                    members.get(0),
                    KafkaSettings.of(kafka.bootstrapServers()),
                    NAMES,
                    TOPIC,
                    true,
                    HazelcastCheckpointStore.DEFAULT_CHUNK_BYTES))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessage(
            "checkpoint topic "
                + TOPIC
                + " accepts records of at most "
                + HazelcastCheckpointStore.maxRecordBytes(CHUNK)
                + " bytes (max.message.bytes), but checkpoint chunks of "
                + HazelcastCheckpointStore.DEFAULT_CHUNK_BYTES
                + " bytes need "
                + needed
                + ": lower --checkpoint-chunk-bytes to at most "
                + CHUNK
                + " or raise the topic's max.message.bytes to "
                + needed);
  }

  private HazelcastInstance member() {
    int port = FreePorts.next();
    HazelcastInstance m =
        HazelcastMembers.start(
            ClusterSettings.loopback("chunks-it-" + port, port, List.of("127.0.0.1:" + port)),
            "it-" + port,
            "node");
    members.add(m);
    return m;
  }

  private HazelcastCheckpointStore storeOn(HazelcastInstance member) {
    return HazelcastCheckpointStore.create(
        member, KafkaSettings.of(kafka.bootstrapServers()), NAMES, TOPIC, true, CHUNK);
  }

  private KafkaProducer<byte[], byte[]> transactional(String transactionalId) {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
  }

  private KafkaProducer<byte[], byte[]> plain() {
    return new KafkaProducer<>(
        Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()),
        new ByteArraySerializer(),
        new ByteArraySerializer());
  }

  private static ProducerRecord<byte[], byte[]> manifestRecord(String id, CheckpointManifest m) {
    return new ProducerRecord<>(TOPIC, key(id), m.encode());
  }

  private static byte[] key(String id) {
    return ("checkpoint/" + id).getBytes(StandardCharsets.UTF_8);
  }

  /** The last value of every key in the topic ({@code read_committed}). */
  private Map<String, byte[]> lastValues() {
    Map<String, byte[]> last = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r :
        TopicReader.readAll(kafka.bootstrapServers(), TOPIC, READ)) {
      last.put(new String(r.key(), StandardCharsets.UTF_8), r.value());
    }
    return last;
  }

  private static byte[] random(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }
}

package dev.skewer.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.core.checkpoint.Checkpoint;
import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.checkpoint.HazelcastCheckpointStore;
import dev.skewer.core.job.Guarantee;
import dev.skewer.core.job.JobNames;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.testkit.checkpoint.ForwardingCheckpointStore;
import dev.skewer.testkit.cluster.LoneMember;
import dev.skewer.testkit.kafka.EmbeddedKafka;
import dev.skewer.testkit.kafka.TopicReader;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The runtime's checkpoints in the topic, on a real KRaft broker and a real Hazelcast member.
 * {@code exactly_once}: real transactions, the offset committed with its pointer, {@code
 * read_committed} reads of the checkpoint topic; an owner whose store copies are all lost (as if it
 * died between each commit and its copy) hands over to one that restores the committed checkpoint
 * from the topic: every input record's output is visible exactly once. {@code at_least_once}: the
 * offset is committed with the position of the checkpoint's mirror, and a successor whose Hazelcast
 * lost the checkpoint reads it back from there. Ordered: the first test reads the whole output
 * topic.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ExactlyOnceBrokerIT {

  private static final String GROUP = "it-eos";
  private static final String ID = "it/in/0";
  private static final String ALO_GROUP = "it-alo";
  private static final String ALO_IN = "alo-in";
  private static final String ALO_ID = "alo-in/0";

  private EmbeddedKafka kafka;
  private HazelcastInstance hazelcast;
  private HazelcastCheckpointStore store;

  @BeforeAll
  void start() throws IOException {
    kafka = EmbeddedKafka.start();
    kafka.createTopic(RuntimeHarness.IN, 1, Map.of());
    kafka.createTopic(ALO_IN, 1, Map.of());
    kafka.createTopic(CountingTask.OUT, 1, Map.of());
    kafka.createTopic(CountingTask.ANNOUNCE, 1, Map.of());
    hazelcast = LoneMember.start("eos-it", "it", "node");
    store =
        HazelcastCheckpointStore.create(
            hazelcast,
            KafkaSettings.of(kafka.bootstrapServers()),
            JobNames.of("eos-it"),
            "it.checkpoints",
            true);
  }

  @AfterAll
  void stop() {
    if (store != null) {
      store.close();
    }
    if (hazelcast != null) {
      hazelcast.getLifecycleService().terminate();
    }
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  @Order(1)
  void shouldRestoreTheCommittedCheckpointFromTheTopicWhenTheStoreMissedEveryCopy()
      throws Exception {
    // given an owner that processes 10 records and commits, but whose store copies are lost
    produce(RuntimeHarness.IN, 0, 10);
    try (Owner first = Owner.start(kafka, new LosingCopies(store), "first")) {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> first.count() == 10 && committedOffset().map(o -> o == 10).orElse(false));
    } // its stop commits once more, and that copy is lost too
    assertThat(store.load(ID)).as("the store never got a copy").isEmpty();
    assertThat(committedOffset()).contains(10L);

    // when the next owner takes the partition over and 5 more records arrive
    try (Owner second = Owner.start(kafka, store, "second")) {
      produce(RuntimeHarness.IN, 10, 5);
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> second.count() == 15 && committedOffset().map(o -> o == 15).orElse(false));

      // then it restored the committed checkpoint (read back from the topic) and replayed nothing
      // the first owner had committed: every record's output is visible exactly once
      List<String> outputs = new ArrayList<>();
      TopicReader.readAll(kafka.bootstrapServers(), CountingTask.OUT, Duration.ofSeconds(30))
          .forEach(r -> outputs.add(new String(r.key(), StandardCharsets.UTF_8)));
      List<String> expected = new ArrayList<>();
      for (int offset = 0; offset < 15; offset++) {
        expected.add("0/" + offset + "/" + (offset < 10 ? 1 : 2));
      }
      assertThat(outputs).isEqualTo(expected);
      Checkpoint copy = store.load(ID).orElseThrow();
      assertThat(copy.epoch()).isEqualTo(2);
      assertThat(CountingTask.countIn(copy)).isEqualTo(15);
    }
  }

  /**
   * Both Hazelcast members holding an {@code at_least_once} checkpoint died before new backups were
   * made (here: the entry is deleted). The group's offset names the checkpoint and its mirror in
   * the topic: the next owner reads it back from there and resumes at its offset, under an epoch
   * above the group's, instead of refusing the store forever.
   */
  @Test
  @Order(2)
  void shouldReadAnAtLeastOnceCheckpointBackFromItsMirrorWhenHazelcastLostIt() throws Exception {
    // given an owner that processed 10 records and stored (and mirrored) its checkpoint
    produce(ALO_IN, 0, 10);
    try (Owner first = Owner.start(kafka, store, ALO_GROUP, ALO_IN, "alo-first")) {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  first.count() == 10
                      && pointer(ALO_GROUP, ALO_IN).map(p -> p.nextOffset() == 10).orElse(false));
    }
    CommitPointer committed = pointer(ALO_GROUP, ALO_IN).orElseThrow();
    assertThat(committed.hasLog()).as("the offset names the mirror's record").isTrue();

    // when Hazelcast loses the checkpoint and its fence, and the next owner takes over
    hazelcast.getMap(JobNames.of("eos-it").checkpointsMap()).delete(ALO_ID);
    assertThat(store.load(ALO_ID)).isEmpty();
    try (Owner second = Owner.start(kafka, store, ALO_GROUP, ALO_IN, "alo-second")) {
      produce(ALO_IN, 10, 5);
      await().atMost(Duration.ofSeconds(60)).until(() -> second.count() == 15);

      // then it restored the count of 10 from the mirror, under an epoch above the group's
      assertThat(second.restoredCounts).first().isEqualTo(10L);
      assertThat(second.tasks.get(0).epoch).isGreaterThan(committed.fence());
    }
  }

  private Optional<Long> committedOffset() throws Exception {
    return pointer(GROUP, RuntimeHarness.IN).map(CommitPointer::nextOffset);
  }

  private Optional<CommitPointer> pointer(String group, String topic) throws Exception {
    try (Admin admin = Admin.create(KafkaSettings.of(kafka.bootstrapServers()).adminConfig())) {
      Map<TopicPartition, OffsetAndMetadata> offsets =
          admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
      return Optional.ofNullable(CommitPointer.of(offsets.get(new TopicPartition(topic, 0))));
    }
  }

  private void produce(String topic, int from, int count) throws Exception {
    Map<String, Object> config =
        Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    try (KafkaProducer<byte[], byte[]> p =
        new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int i = from; i < from + count; i++) {
        p.send(new ProducerRecord<>(topic, 0, null, ("v" + i).getBytes())).get();
      }
    }
  }

  /** A store that loses the copies owners keep after their commits (but not the fencing). */
  private static final class LosingCopies extends ForwardingCheckpointStore {

    LosingCopies(CheckpointStore delegate) {
      super(delegate);
    }

    @Override
    public boolean cache(String id, Checkpoint checkpoint) {
      return delegate.currentEpoch(id) <= checkpoint.epoch();
    }

    @Override
    public Optional<RecordMetadata> writeTransactional(
        String id, Checkpoint checkpoint, Producer<byte[], byte[]> producer) {
      return delegate.writeTransactional(id, checkpoint, producer);
    }

    @Override
    public Optional<Checkpoint> read(String id, int partition, long offset) {
      return delegate.read(id, partition, offset);
    }
  }

  /** One owner: a runtime of counting tasks on the real broker, in its own Vert.x. */
  private static final class Owner implements AutoCloseable {
    private final Vertx vertx = Vertx.vertx();
    private final List<CountingTask> tasks = new CopyOnWriteArrayList<>();
    private final List<Long> restoredCounts = new CopyOnWriteArrayList<>();
    private PartitionRuntime<CountingTask> runtime;

    /** An {@code exactly_once} owner of {@link RuntimeHarness#IN} in {@link #GROUP}. */
    static Owner start(EmbeddedKafka kafka, CheckpointStore store, String id) throws Exception {
      return start(kafka, store, GROUP, RuntimeHarness.IN, "it/in/", Guarantee.EXACTLY_ONCE, id);
    }

    /** An {@code at_least_once} owner of {@code topic} in {@code group}. */
    static Owner start(
        EmbeddedKafka kafka, CheckpointStore store, String group, String topic, String id)
        throws Exception {
      return start(kafka, store, group, topic, topic + "/", Guarantee.AT_LEAST_ONCE, id);
    }

    private static Owner start(
        EmbeddedKafka kafka,
        CheckpointStore store,
        String group,
        String topic,
        String checkpointPrefix,
        Guarantee guarantee,
        String id)
        throws Exception {
      Owner o = new Owner();
      StageSettings settings =
          new StageSettings(
              "test",
              id,
              topic,
              checkpointPrefix,
              false,
              1_000,
              Duration.ofMillis(100),
              Duration.ofMillis(500),
              Duration.ofMillis(50),
              Duration.ofSeconds(30),
              guarantee);
      KafkaStageClients clients =
          new KafkaStageClients(
              KafkaSettings.of(kafka.bootstrapServers()),
              group,
              id,
              id + "-consumer",
              id + "-producer",
              Map.of());
      o.vertx
          .deployVerticle(
              new VerticleBase() {
                @Override
                public Future<?> start() {
                  o.runtime =
                      new PartitionRuntime<>(
                          vertx,
                          settings,
                          clients,
                          (p, epoch, cp) -> {
                            CountingTask t = CountingTask.restore(p, epoch, cp);
                            o.restoredCounts.add(cp.map(CountingTask::countIn).orElse(0L));
                            o.tasks.add(t);
                            return t;
                          },
                          store,
                          new SimpleMeterRegistry(),
                          Clock.systemUTC());
                  return o.runtime.start();
                }

                @Override
                public Future<?> stop() {
                  return o.runtime.stop();
                }
              })
          .await(60, TimeUnit.SECONDS);
      return o;
    }

    long count() {
      return tasks.isEmpty() ? -1 : tasks.get(tasks.size() - 1).count;
    }

    @Override
    public void close() throws Exception {
      vertx.close().await(60, TimeUnit.SECONDS);
    }
  }
}

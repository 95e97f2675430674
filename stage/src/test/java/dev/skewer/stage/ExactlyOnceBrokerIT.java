package dev.skewer.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.core.checkpoint.Checkpoint;
import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.checkpoint.HazelcastCheckpointStore;
import dev.skewer.core.cluster.ClusterSettings;
import dev.skewer.core.cluster.HazelcastMembers;
import dev.skewer.core.job.Guarantee;
import dev.skewer.core.job.JobNames;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.core.net.FreePorts;
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
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The {@code exactly_once} runtime on a real KRaft broker and a real Hazelcast member: real
 * transactions, the offset committed with its pointer, {@code read_committed} reads of the
 * checkpoint topic. An owner whose store copies are all lost (as if it died between each commit and
 * its copy) hands over to one that restores the committed checkpoint from the topic: every input
 * record's output is visible exactly once.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExactlyOnceBrokerIT {

  private static final String GROUP = "it-eos";
  private static final String ID = "it/in/0";

  private EmbeddedKafka kafka;
  private HazelcastInstance hazelcast;
  private HazelcastCheckpointStore store;

  @BeforeAll
  void start() throws IOException {
    kafka = EmbeddedKafka.start();
    kafka.createTopic(RuntimeHarness.IN, 1, Map.of());
    kafka.createTopic(CountingTask.OUT, 1, Map.of());
    kafka.createTopic(CountingTask.ANNOUNCE, 1, Map.of());
    int port = FreePorts.next();
    hazelcast =
        HazelcastMembers.start(
            ClusterSettings.loopback("eos-it-" + port, port, List.of("127.0.0.1:" + port)),
            "it",
            "node");
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
  void shouldRestoreTheCommittedCheckpointFromTheTopicWhenTheStoreMissedEveryCopy()
      throws Exception {
    // given an owner that processes 10 records and commits, but whose store copies are lost
    produce(0, 10);
    try (Owner first = Owner.start(kafka, new LosingCopies(store), "first")) {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> first.count() == 10 && committedOffset().map(o -> o == 10).orElse(false));
    } // its stop commits once more, and that copy is lost too
    assertThat(store.load(ID)).as("the store never got a copy").isEmpty();
    assertThat(committedOffset()).contains(10L);

    // when the next owner takes the partition over and 5 more records arrive
    try (Owner second = Owner.start(kafka, store, "second")) {
      produce(10, 5);
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

  private Optional<Long> committedOffset() throws Exception {
    try (Admin admin = Admin.create(KafkaSettings.of(kafka.bootstrapServers()).adminConfig())) {
      Map<TopicPartition, OffsetAndMetadata> offsets =
          admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata().get();
      OffsetAndMetadata o = offsets.get(new TopicPartition(RuntimeHarness.IN, 0));
      return o == null ? Optional.empty() : Optional.of(o.offset());
    }
  }

  private void produce(int from, int count) throws Exception {
    Map<String, Object> config =
        Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    try (KafkaProducer<byte[], byte[]> p =
        new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int i = from; i < from + count; i++) {
        p.send(new ProducerRecord<>(RuntimeHarness.IN, 0, null, ("v" + i).getBytes())).get();
      }
    }
  }

  /** A store that loses the copies owners keep after their commits (but not the fencing). */
  private static final class LosingCopies implements CheckpointStore {
    private final CheckpointStore delegate;

    LosingCopies(CheckpointStore delegate) {
      this.delegate = delegate;
    }

    @Override
    public long nextEpoch(String id) {
      return delegate.nextEpoch(id);
    }

    @Override
    public long currentEpoch(String id) {
      return delegate.currentEpoch(id);
    }

    @Override
    public Optional<Checkpoint> load(String id) {
      return delegate.load(id);
    }

    @Override
    public boolean save(String id, Checkpoint checkpoint) {
      return delegate.save(id, checkpoint);
    }

    @Override
    public boolean cache(String id, Checkpoint checkpoint) {
      return delegate.currentEpoch(id) <= checkpoint.epoch();
    }

    @Override
    public Optional<ProducerRecord<byte[], byte[]>> transactionalRecord(
        String id, Checkpoint checkpoint) {
      return delegate.transactionalRecord(id, checkpoint);
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
    private PartitionRuntime<CountingTask> runtime;

    static Owner start(EmbeddedKafka kafka, CheckpointStore store, String id) throws Exception {
      Owner o = new Owner();
      StageSettings settings =
          new StageSettings(
              "test",
              id,
              RuntimeHarness.IN,
              "it/in/",
              false,
              1_000,
              Duration.ofMillis(100),
              Duration.ofMillis(500),
              Duration.ofMillis(50),
              Duration.ofSeconds(30),
              Guarantee.EXACTLY_ONCE);
      KafkaStageClients clients =
          new KafkaStageClients(
              KafkaSettings.of(kafka.bootstrapServers()),
              GROUP,
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

package dev.skewer.stage;

import dev.skewer.core.checkpoint.Checkpoint;
import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.checkpoint.InMemoryCheckpointStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * A {@link PartitionRuntime} of {@link CountingTask}s on a real Vert.x instance with Kafka's mock
 * clients and the in-memory checkpoint store: the test drives the group (rebalances), the input
 * (records) and the acknowledgements. For {@code exactly_once} runtimes the transactional producers
 * come from {@link #transactions}, and {@link #sent} lists only committed records (what a {@code
 * read_committed} reader sees).
 */
final class RuntimeHarness implements AutoCloseable {

  static final String IN = "in";

  final Vertx vertx = Vertx.vertx();
  final PacedMockConsumer consumer = new PacedMockConsumer();
  Runnable afterBatch; // set before start: the runtime's after-batch hook
  Clock clock = Clock.systemUTC(); // set before start: the runtime's clock
  final GatedProducer producer;
  final FakeTransactions transactions;
  final CheckpointStore store;
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final List<CountingTask> tasks = new CopyOnWriteArrayList<>();
  final Map<Integer, Long> nextOffset = new ConcurrentHashMap<>();
  PartitionRuntime<CountingTask> runtime;
  private String deployment;

  RuntimeHarness(boolean autoAcknowledge) {
    this(autoAcknowledge, new InMemoryCheckpointStore());
  }

  RuntimeHarness(boolean autoAcknowledge, CheckpointStore store) {
    this(autoAcknowledge, new FakeTransactions(autoAcknowledge), store);
  }

  RuntimeHarness(boolean autoAcknowledge, FakeTransactions transactions, CheckpointStore store) {
    this.producer = new GatedProducer(autoAcknowledge);
    this.transactions = transactions;
    this.store = store;
    consumer.transactionalCommits(transactions.committedOffsets);
  }

  /** An {@code exactly_once} harness whose store keeps its checkpoints' copies in "Kafka". */
  static RuntimeHarness exactlyOnce(boolean autoAcknowledge) {
    FakeTransactions transactions = new FakeTransactions(autoAcknowledge);
    return new RuntimeHarness(
        autoAcknowledge, transactions, new LoggedCheckpointStore(transactions));
  }

  static StageSettings settings(Duration checkpointInterval, int maxPending) {
    return settings(checkpointInterval, maxPending, Duration.ofMillis(50));
  }

  static StageSettings settings(
      Duration checkpointInterval, int maxPending, Duration tickInterval) {
    return new StageSettings(
        "test",
        "test-1",
        IN,
        "test/in/",
        false,
        maxPending,
        tickInterval,
        checkpointInterval,
        Duration.ofMillis(20),
        Duration.ofSeconds(10));
  }

  /** Starts with tasks built by {@link CountingTask#restore}. */
  RuntimeHarness start(StageSettings settings) throws Exception {
    return start(settings, (p, epoch, cp) -> CountingTask.restore(p, epoch, cp));
  }

  RuntimeHarness start(StageSettings settings, TaskFactory<CountingTask> factory) throws Exception {
    TaskFactory<CountingTask> recording =
        (p, epoch, cp) -> {
          CountingTask t = factory.restore(p, epoch, cp);
          tasks.add(t);
          return t;
        };
    StageClients clients =
        new StageClients() {
          @Override
          public Consumer<byte[], byte[]> consumer() {
            return consumer;
          }

          @Override
          public Producer<byte[], byte[]> producer() {
            return producer;
          }

          @Override
          public Producer<byte[], byte[]> transactionalProducer(
              String transactionalId, Duration transactionTimeout) {
            return transactions.create(transactionalId);
          }
        };
    deployment =
        vertx
            .deployVerticle(
                new VerticleBase() {
                  @Override
                  public Future<?> start() {
                    runtime =
                        new PartitionRuntime<>(
                            vertx, settings, clients, recording, store, registry, clock);
                    if (afterBatch != null) {
                      runtime.afterEachBatch(afterBatch);
                    }
                    return runtime.start();
                  }

                  @Override
                  public Future<?> stop() {
                    return runtime.stop();
                  }
                })
            .await(10, TimeUnit.SECONDS);
    return this;
  }

  /**
   * Commits {@code committed} for a partition in the group, from the poll thread (after the
   * consumer subscribed, which clears the mock's commits); call before {@link #assign}.
   */
  void commitInGroup(int partition, org.apache.kafka.clients.consumer.OffsetAndMetadata committed) {
    consumer.schedulePollTask(
        () -> consumer.commitSync(Map.of(new TopicPartition(IN, partition), committed)));
  }

  /** The group assigns exactly these partitions (revoking the others), from the poll thread. */
  void assign(int... partitions) {
    assign(() -> {}, partitions);
  }

  /**
   * The group assigns exactly these partitions (revoking the others), from the poll thread, then
   * runs {@code next} there once the rebalance callbacks have returned (a revocation is done
   * waiting for what it waits for). What the group does after a revocation must be scheduled this
   * way, not by a second poll task from the test thread: the mock consumer is locked while a poll
   * task runs, so a test thread that comes late would wait for the revocation to end and schedule
   * it only then.
   */
  void assign(Runnable next, int... partitions) {
    List<TopicPartition> tps = new ArrayList<>();
    Map<TopicPartition, Long> beginnings = new HashMap<>();
    for (int p : partitions) {
      TopicPartition tp = new TopicPartition(IN, p);
      tps.add(tp);
      beginnings.put(tp, 0L);
    }
    consumer.updateBeginningOffsets(beginnings);
    consumer.schedulePollTask(
        () -> {
          consumer.rebalance(tps);
          next.run();
        });
  }

  /**
   * Appends {@code count} records to a partition in one step: a poll sees all of them or none, so
   * the batches a test sees do not depend on how the test thread and the poll thread interleave.
   */
  void append(int partition, int count) {
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      long offset = nextOffset.merge(partition, 1L, Long::sum) - 1;
      records.add(
          new ConsumerRecord<>(
              IN, partition, offset, null, ("v" + offset).getBytes(StandardCharsets.UTF_8)));
    }
    consumer.append(records);
  }

  /**
   * What a test that waits in vain needs to know: the tasks made for the partition and their
   * counts, the consumer's position and pauses, the records in its log, the outputs pending.
   */
  String describe(int partition) {
    TopicPartition tp = new TopicPartition(IN, partition);
    StringBuilder b = new StringBuilder("partition ").append(partition).append(": tasks [");
    for (CountingTask t : tasks) {
      if (t.partition == partition) {
        b.append("epoch ").append(t.epoch).append(" count ").append(t.count).append("; ");
      }
    }
    b.append("], consumer ").append(consumer.describe(tp));
    b.append(", owned ").append(runtime.ownedPartitions());
    b.append(", pending outputs ").append(runtime.pendingRecords());
    return b.toString();
  }

  /** The live task of a partition (the latest one created), if any. */
  Optional<CountingTask> task(int partition) {
    CountingTask latest = null;
    for (CountingTask t : tasks) {
      if (t.partition == partition) {
        latest = t;
      }
    }
    return Optional.ofNullable(latest);
  }

  Optional<Checkpoint> checkpoint(int partition) {
    return store.load("test/in/" + partition);
  }

  /**
   * Output records to {@code topic} sent so far (acknowledged or not); for {@code exactly_once}
   * those of committed transactions.
   */
  List<ProducerRecord<byte[], byte[]>> sent(String topic) {
    if (!transactions.producers.isEmpty()) {
      return transactions.committed(topic);
    }
    List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>();
    for (ProducerRecord<byte[], byte[]> r : producer.history()) {
      if (r.topic().equals(topic)) {
        out.add(r);
      }
    }
    return out;
  }

  Future<Void> stop() {
    return vertx.undeploy(deployment);
  }

  /** The offset committed for an input partition (exactly_once: with its transaction). */
  Optional<org.apache.kafka.clients.consumer.OffsetAndMetadata> committed(int partition) {
    return Optional.ofNullable(
        transactions.committedOffsets.get(new TopicPartition(IN, partition)));
  }

  @Override
  public void close() throws Exception {
    producer.openGate();
    transactions.openGates();
    vertx.close().await(30, TimeUnit.SECONDS);
  }
}

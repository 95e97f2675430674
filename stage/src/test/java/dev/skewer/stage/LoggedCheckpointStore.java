package dev.skewer.stage;

import dev.skewer.core.checkpoint.Checkpoint;
import dev.skewer.core.checkpoint.InMemoryCheckpointStore;
import dev.skewer.testkit.checkpoint.ForwardingCheckpointStore;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;

/**
 * The in-memory store with a copy in "Kafka" ({@link FakeTransactions}), as the Hazelcast store
 * has: {@code exactly_once} owners write their checkpoint records to {@link #TOPIC} in their
 * transactions and read them back from there. {@link #dropCopies} makes the store miss the copies
 * owners keep after their commits (a store that fell behind, or an owner that died between commit
 * and copy).
 */
final class LoggedCheckpointStore extends ForwardingCheckpointStore {

  static final String TOPIC = "checkpoints";

  private final FakeTransactions broker;
  final AtomicInteger reads = new AtomicInteger();
  volatile boolean dropCopies;
  volatile CountDownLatch copiesHeldUntil; // non-null: copies wait for it (a store that hangs)
  volatile CountDownLatch answersHeldUntil; // non-null: epochs and loads wait for it (it hangs)
  final AtomicInteger copiesStarted = new AtomicInteger();

  LoggedCheckpointStore(FakeTransactions broker) {
    super(new InMemoryCheckpointStore());
    this.broker = broker;
  }

  @Override
  public long nextEpoch(String id) {
    await(answersHeldUntil);
    return delegate.nextEpoch(id);
  }

  @Override
  public Optional<Checkpoint> load(String id) {
    await(answersHeldUntil);
    return delegate.load(id);
  }

  @Override
  public boolean cache(String id, Checkpoint checkpoint) {
    copiesStarted.incrementAndGet();
    await(copiesHeldUntil);
    return dropCopies
        ? delegate.currentEpoch(id) <= checkpoint.epoch()
        : delegate.save(id, checkpoint).accepted();
  }

  private static void await(CountDownLatch held) {
    if (held != null) {
      try {
        held.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  @Override
  public Optional<RecordMetadata> writeTransactional(
      String id, Checkpoint cp, Producer<byte[], byte[]> producer) {
    try {
      return Optional.of(producer.send(new ProducerRecord<>(TOPIC, key(id), cp.encode())).get());
    } catch (ExecutionException e) {
      throw new KafkaException("cannot write the checkpoint of " + id, e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaException("interrupted writing the checkpoint of " + id, e);
    }
  }

  /** The latest committed record of the id (the runtime checks it is the one its pointer names). */
  @Override
  public Optional<Checkpoint> read(String id, int partition, long offset) {
    reads.incrementAndGet();
    return broker.latestCommitted(TOPIC, key(id)).map(r -> Checkpoint.decode(r.value()));
  }

  private static byte[] key(String id) {
    return ("checkpoint/" + id).getBytes(StandardCharsets.UTF_8);
  }
}

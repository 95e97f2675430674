package dev.skewer.stage;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;

/**
 * What the broker does for transactions, for the runtime's tests, over Kafka's {@code
 * MockProducer}: each transactional producer is a {@link GatedProducer} (the test gives the
 * acknowledgements); initialising one fences every earlier producer of the same transactional id
 * (their pending records fail, their open transaction never becomes visible); committing one makes
 * its records visible ({@link #committed}) and its offsets the group's committed offsets ({@link
 * #committedOffsets}, which {@link PacedMockConsumer#committed} reports).
 */
final class FakeTransactions {

  final List<Producer> producers = new CopyOnWriteArrayList<>();
  final Map<TopicPartition, OffsetAndMetadata> committedOffsets = new ConcurrentHashMap<>();
  private volatile boolean autoAcknowledge;

  FakeTransactions(boolean autoAcknowledge) {
    this.autoAcknowledge = autoAcknowledge;
  }

  Producer create(String transactionalId) {
    Producer p = new Producer(transactionalId, autoAcknowledge);
    producers.add(p);
    return p;
  }

  /**
   * The latest producer of a partition's transactional id (the runtime's is {@code <prefix><p>}).
   */
  Producer latest(int partition) {
    Producer latest = null;
    for (Producer p : producers) {
      if (p.transactionalId.endsWith("/" + partition)) {
        latest = p;
      }
    }
    return latest;
  }

  /** Records of committed transactions, producer by producer (in creation order). */
  List<ProducerRecord<byte[], byte[]>> committed(String topic) {
    List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>();
    for (Producer p : producers) {
      for (ProducerRecord<byte[], byte[]> r : p.history()) {
        if (r.topic().equals(topic)) {
          out.add(r);
        }
      }
    }
    return out;
  }

  /** Records sent in transactions still open (or never committed). */
  List<ProducerRecord<byte[], byte[]>> uncommitted(String topic) {
    List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>();
    for (Producer p : producers) {
      for (ProducerRecord<byte[], byte[]> r : p.uncommittedRecords()) {
        if (r.topic().equals(topic)) {
          out.add(r);
        }
      }
    }
    return out;
  }

  /** The last committed record with {@code key} on {@code topic}. */
  Optional<ProducerRecord<byte[], byte[]>> latestCommitted(String topic, byte[] key) {
    List<ProducerRecord<byte[], byte[]>> all = committed(topic);
    for (int i = all.size() - 1; i >= 0; i--) {
      if (Arrays.equals(all.get(i).key(), key)) {
        return Optional.of(all.get(i));
      }
    }
    return Optional.empty();
  }

  /** Opens every producer's gate, and those of producers made later. */
  void openGates() {
    autoAcknowledge = true;
    producers.forEach(GatedProducer::openGate);
  }

  /** One transactional producer. */
  final class Producer extends GatedProducer {
    final String transactionalId;

    Producer(String transactionalId, boolean autoAcknowledge) {
      super(autoAcknowledge);
      this.transactionalId = transactionalId;
    }

    @Override
    public void initTransactions() {
      for (Producer p : producers) {
        if (p != this && p.transactionalId.equals(transactionalId)) {
          p.fenceByBroker();
        }
      }
      super.initTransactions();
    }

    /** What a newer producer's initTransactions does to this one. */
    void fenceByBroker() {
      synchronized (this) {
        try {
          fenceProducer();
        } catch (IllegalStateException alreadyClosedOrFenced) {
          return;
        }
        while (errorNext(new ProducerFencedException("fenced by a newer " + transactionalId))) {
          // every pending record fails
        }
      }
    }

    @Override
    public void commitTransaction() {
      Map<String, Map<TopicPartition, OffsetAndMetadata>> offsets = uncommittedOffsets();
      List<Map<TopicPartition, OffsetAndMetadata>> copy = new ArrayList<>(offsets.values());
      super.commitTransaction();
      copy.forEach(committedOffsets::putAll);
    }
  }
}

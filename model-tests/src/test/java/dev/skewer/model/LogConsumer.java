package dev.skewer.model;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.record.TimestampType;

/**
 * Kafka's {@link MockConsumer} (group callbacks, seeks, pauses, commits) reading one topic of the
 * {@link MemoryBroker}: a poll returns, for each assigned and unpaused partition in partition
 * order, the records from its position on, at most {@code maxPollRecords} in all — so poll batches
 * are cut where that budget ends — and otherwise waits briefly for an append. Records stay in the
 * broker, so a rewind reads them again.
 */
final class LogConsumer extends MockConsumer<byte[], byte[]> {

  /** How long an empty poll waits for an append (appends, wake-ups and rebalances end it early). */
  private static final long IDLE_WAIT_MS = 20;

  private final MemoryBroker broker;
  private final String topic;
  private final AtomicBoolean wakeup = new AtomicBoolean();
  private volatile int maxPollRecords;

  LogConsumer(MemoryBroker broker, String topic, int maxPollRecords) {
    super("earliest");
    this.broker = broker;
    this.topic = topic;
    this.maxPollRecords = maxPollRecords;
    Map<TopicPartition, Long> beginnings = new HashMap<>();
    for (int p = 0; p < broker.partitions(topic); p++) {
      beginnings.put(new TopicPartition(topic, p), 0L);
    }
    updateBeginningOffsets(beginnings);
  }

  /** Thread-safe and non-blocking, as the real consumer's. */
  @Override
  public void wakeup() {
    wakeup.set(true);
    broker.wake();
  }

  @Override
  public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
    if (wakeup.getAndSet(false)) {
      throw new WakeupException();
    }
    long seen = broker.appends();
    super.poll(Duration.ZERO); // scheduled rebalances and the closed check
    Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> out = new HashMap<>();
    synchronized (this) {
      int budget = maxPollRecords;
      Set<TopicPartition> paused = paused();
      List<TopicPartition> assigned = new ArrayList<>(assignment());
      assigned.sort(Comparator.comparingInt(TopicPartition::partition));
      for (TopicPartition tp : assigned) {
        if (budget == 0 || paused.contains(tp)) {
          continue;
        }
        List<MemoryBroker.Stored> stored = broker.read(topic, tp.partition(), position(tp), budget);
        if (stored.isEmpty()) {
          continue;
        }
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>(stored.size());
        for (MemoryBroker.Stored s : stored) {
          records.add(
              new ConsumerRecord<>(
                  topic,
                  s.partition(),
                  s.offset(),
                  s.timestamp(),
                  TimestampType.CREATE_TIME,
                  s.key() == null ? -1 : s.key().length,
                  s.value() == null ? -1 : s.value().length,
                  s.key(),
                  s.value(),
                  s.headers(),
                  Optional.empty()));
        }
        budget -= records.size();
        out.put(tp, records);
        seek(tp, stored.get(stored.size() - 1).offset() + 1);
      }
    }
    if (out.isEmpty() && !wakeup.get()) {
      try {
        broker.awaitAppend(seen, Math.min(IDLE_WAIT_MS, timeout.toMillis()));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptException(e);
      }
    }
    return new ConsumerRecords<>(out, Map.of());
  }
}

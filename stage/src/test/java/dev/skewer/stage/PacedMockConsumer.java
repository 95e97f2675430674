package dev.skewer.stage;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * Kafka's {@link MockConsumer} (group membership, rebalances, seeks, pauses, commits) over a
 * retained log: the mock forgets records once polled — and those of paused partitions too — while a
 * broker keeps them, and the runtime reads them again after a rewind. Polls return the records of
 * each assigned, unpaused partition from its position on, up to the max poll records, and pause a
 * few milliseconds when there are none (the real consumer waits for its timeout).
 */
final class PacedMockConsumer extends MockConsumer<byte[], byte[]> {

  private final Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> log = new HashMap<>();
  private volatile Map<TopicPartition, OffsetAndMetadata> transactionalCommits = Map.of();
  private final AtomicBoolean wakeup = new AtomicBoolean();
  private volatile RuntimeException commitRefusal;
  private int maxPollRecords = 500;

  PacedMockConsumer() {
    super("earliest");
  }

  /**
   * Appends records to their partitions' logs in one step, as one producer batch lands on a broker:
   * a poll sees all of them or none (the partitions need not be assigned).
   */
  synchronized void append(List<ConsumerRecord<byte[], byte[]>> records) {
    for (ConsumerRecord<byte[], byte[]> r : records) {
      log.computeIfAbsent(new TopicPartition(r.topic(), r.partition()), tp -> new ArrayList<>())
          .add(r);
    }
  }

  /** A partition's position, whether it is assigned and paused, and how many records it holds. */
  synchronized String describe(TopicPartition tp) {
    boolean assigned = assignment().contains(tp);
    List<ConsumerRecord<byte[], byte[]>> records = log.getOrDefault(tp, List.of());
    return "assigned "
        + assigned
        + ", position "
        + (assigned ? Long.toString(position(tp)) : "none")
        + ", paused "
        + paused().contains(tp)
        + ", log "
        + records.size()
        + " records";
  }

  /** Offsets committed through producer transactions, reported by {@link #committed}. */
  void transactionalCommits(Map<TopicPartition, OffsetAndMetadata> commits) {
    this.transactionalCommits = commits;
  }

  /** What the group has committed, offsets committed in transactions included. */
  @Override
  public Map<TopicPartition, OffsetAndMetadata> committed(
      Set<TopicPartition> partitions, Duration timeout) {
    Map<TopicPartition, OffsetAndMetadata> out =
        new HashMap<>(super.committed(partitions, timeout));
    for (TopicPartition tp : partitions) {
      OffsetAndMetadata t = transactionalCommits.get(tp);
      if (t != null) {
        out.put(tp, t);
      }
    }
    return out;
  }

  /** From now on the group refuses synchronous commits with {@code e}; null: accepts them again. */
  void refuseCommits(RuntimeException e) {
    this.commitRefusal = e;
  }

  @Override
  public synchronized void commitSync(
      Map<TopicPartition, OffsetAndMetadata> offsets, Duration timeout) {
    RuntimeException refusal = commitRefusal;
    if (refusal != null) {
      throw refusal;
    }
    super.commitSync(offsets, timeout);
  }

  @Override
  public synchronized void setMaxPollRecords(long maxPollRecords) {
    this.maxPollRecords = (int) maxPollRecords;
  }

  /**
   * Thread-safe and non-blocking, as the real consumer's (the mock's is synchronized, so a wakeup
   * would wait for a poll that is itself waiting in a rebalance callback).
   */
  @Override
  public void wakeup() {
    wakeup.set(true);
  }

  @Override
  public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
    if (wakeup.getAndSet(false)) {
      throw new WakeupException();
    }
    super.poll(Duration.ZERO); // scheduled tasks (rebalances), wakeups, closed checks
    Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> out = new HashMap<>();
    synchronized (this) {
      int budget = maxPollRecords;
      Set<TopicPartition> paused = paused();
      for (TopicPartition tp : assignment()) {
        List<ConsumerRecord<byte[], byte[]>> records = log.get(tp);
        if (paused.contains(tp) || records == null) {
          continue;
        }
        long position = position(tp);
        List<ConsumerRecord<byte[], byte[]>> taken = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
          if (r.offset() >= position && budget > 0) {
            taken.add(r);
            budget--;
          }
        }
        if (!taken.isEmpty()) {
          out.put(tp, taken);
          seek(tp, taken.get(taken.size() - 1).offset() + 1);
        }
      }
    }
    if (out.isEmpty()) {
      try {
        Thread.sleep(Math.min(5, timeout.toMillis()));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return new ConsumerRecords<>(out, Map.of());
  }
}

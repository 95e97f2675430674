package dev.skewer.model;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Utils;

/**
 * Kafka's {@link MockProducer} writing into the {@link MemoryBroker}, acknowledging each record as
 * it is appended (callbacks in send order), with the broker's failures a history asks for:
 *
 * <ul>
 *   <li>{@link #failNext}: the n-th next send to a topic fails (a lost send);
 *   <li>a record larger than {@code maxRequestBytes} fails every time ({@code
 *       RecordTooLargeException}), as the real producer's {@code max.request.size} check does;
 *   <li>{@link #closeGate}: acknowledgements are held (a slow broker) until {@link #openGate}.
 * </ul>
 *
 * Thread-safe.
 */
final class LogProducer extends MockProducer<byte[], byte[]> {

  private record Held(ProducerRecord<byte[], byte[]> record, Callback callback) {}

  private static final class FailRule {
    final String topic;
    int skip;

    FailRule(String topic, int skip) {
      this.topic = topic;
      this.skip = skip;
    }
  }

  private final MemoryBroker broker;
  private final Clock clock;
  private final int maxRequestBytes;
  private final List<Held> held = new ArrayList<>();
  private final List<FailRule> rules = new ArrayList<>();
  private boolean gateOpen = true;

  LogProducer(MemoryBroker broker, Clock clock, int maxRequestBytes) {
    super(false, null, new ByteArraySerializer(), new ByteArraySerializer());
    this.broker = broker;
    this.clock = clock;
    this.maxRequestBytes = maxRequestBytes;
  }

  @Override
  public synchronized Future<RecordMetadata> send(
      ProducerRecord<byte[], byte[]> record, Callback callback) {
    RuntimeException failure = failure(record);
    if (failure != null) {
      if (callback != null) {
        callback.onCompletion(null, failure);
      }
      return CompletableFuture.failedFuture(failure);
    }
    if (!gateOpen) {
      held.add(new Held(record, callback));
      return new CompletableFuture<>();
    }
    return CompletableFuture.completedFuture(deliver(record, callback));
  }

  private RuntimeException failure(ProducerRecord<byte[], byte[]> record) {
    int size = (record.key() == null ? 0 : record.key().length) + record.value().length;
    if (size > maxRequestBytes) {
      return new RecordTooLargeException(
          "the record is " + size + " bytes, more than max.request.size " + maxRequestBytes);
    }
    Iterator<FailRule> it = rules.iterator();
    while (it.hasNext()) {
      FailRule rule = it.next();
      if (rule.topic.equals(record.topic()) && rule.skip-- == 0) {
        it.remove();
        return new TimeoutException("injected: the broker lost this send to " + record.topic());
      }
    }
    return null;
  }

  private RecordMetadata deliver(ProducerRecord<byte[], byte[]> record, Callback callback) {
    int partition =
        record.partition() != null
            ? record.partition()
            : record.key() == null
                ? 0
                : Utils.toPositive(Utils.murmur2(record.key())) % broker.partitions(record.topic());
    MemoryBroker.Stored s =
        broker.append(
            record.topic(),
            partition,
            clock.millis(),
            record.key(),
            record.value(),
            record.headers());
    RecordMetadata md =
        new RecordMetadata(
            new TopicPartition(record.topic(), partition), s.offset(), 0, s.timestamp(), -1, -1);
    if (callback != null) {
      callback.onCompletion(md, null);
    }
    return md;
  }

  /** The {@code skip}-th next send to {@code topic} (0: the next one) fails. */
  synchronized void failNext(String topic, int skip) {
    rules.add(new FailRule(topic, skip));
  }

  /** Holds acknowledgements from now on. */
  synchronized void closeGate() {
    gateOpen = false;
  }

  /**
   * Acknowledges what was held, in order, and every send from now on; with {@code loseFirst} the
   * first held record fails instead (lost while the broker was slow).
   */
  synchronized void openGate(boolean loseFirst) {
    gateOpen = true;
    for (int i = 0; i < held.size(); i++) {
      Held h = held.get(i);
      if (i == 0 && loseFirst) {
        if (h.callback() != null) {
          h.callback().onCompletion(null, new TimeoutException("injected: lost while held"));
        }
      } else {
        deliver(h.record(), h.callback());
      }
    }
    held.clear();
  }

  /** Loses the first held send (the broker fails it) and keeps holding the others. */
  synchronized void loseFirstHeld() {
    if (!held.isEmpty()) {
      Held h = held.remove(0);
      if (h.callback() != null) {
        h.callback().onCompletion(null, new TimeoutException("injected: lost while held"));
      }
    }
  }

  synchronized int held() {
    return held.size();
  }

  synchronized boolean gateOpen() {
    return gateOpen;
  }

  @Override
  public void flush() {
    // acknowledgements come from send or openGate; nothing is buffered
  }
}

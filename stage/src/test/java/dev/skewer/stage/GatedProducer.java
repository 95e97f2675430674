package dev.skewer.stage;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Kafka's {@link MockProducer} whose acknowledgements the test gives: with {@code autoAcknowledge}
 * off, sends stay pending until {@link #completeNext()} or {@link #errorNext}, and {@link #flush}
 * waits for that instead of completing them itself (the mock's own flush acknowledges everything,
 * which would hide the order a checkpoint must respect). {@link #failTopic} makes every send to a
 * topic fail, as a broker that refuses it would. {@link #flushWaiting} tells whether a flush (a
 * checkpoint, or a commit) is waiting for acknowledgements.
 */
class GatedProducer extends MockProducer<byte[], byte[]> {

  private volatile boolean autoAcknowledge;
  private volatile boolean flushWaiting;
  private int unacknowledged;
  private volatile String failingTopic;
  private volatile RuntimeException failure;

  GatedProducer(boolean autoAcknowledge) {
    super(false, null, new ByteArraySerializer(), new ByteArraySerializer());
    this.autoAcknowledge = autoAcknowledge;
  }

  /** Every send to {@code topic} fails with {@code e} from now on (null: none). */
  void failTopic(String topic, RuntimeException e) {
    this.failure = e;
    this.failingTopic = topic;
  }

  @Override
  public synchronized Future<RecordMetadata> send(
      ProducerRecord<byte[], byte[]> record, Callback callback) {
    String failing = failingTopic;
    if (failing != null && failing.equals(record.topic())) {
      callback.onCompletion(null, failure);
      return CompletableFuture.failedFuture(failure);
    }
    Future<RecordMetadata> f = super.send(record, callback); // throws when fenced or closed
    unacknowledged++;
    if (autoAcknowledge) {
      completeAll();
    }
    return f;
  }

  @Override
  public synchronized boolean completeNext() {
    boolean done = super.completeNext();
    if (done) {
      unacknowledged--;
      notifyAll();
    }
    return done;
  }

  @Override
  public synchronized boolean errorNext(RuntimeException e) {
    boolean done = super.errorNext(e);
    if (done) {
      unacknowledged--;
      notifyAll();
    }
    return done;
  }

  /** Acknowledges everything sent so far and, from now on, every send at once. */
  synchronized void openGate() {
    completeAll();
    autoAcknowledge = true;
  }

  /** Acknowledges everything sent so far. */
  synchronized void completeAll() {
    while (completeNext()) {
      // until none is left
    }
  }

  synchronized int unacknowledged() {
    return unacknowledged;
  }

  @Override
  public void flush() {
    synchronized (this) {
      while (unacknowledged > 0) {
        flushWaiting = true;
        try {
          wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        } finally {
          flushWaiting = false;
        }
      }
    }
  }

  /** Whether a flush is waiting for acknowledgements. */
  boolean flushWaiting() {
    return flushWaiting;
  }
}

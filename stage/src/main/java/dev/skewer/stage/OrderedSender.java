package dev.skewer.stage;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Sends what tasks emit, in order, through one producer. Tasks put records through the {@link
 * TaskOutput} of their {@link Origin}; {@link #dispatch} hands everything collected so far to the
 * ordered worker of the runtime's context, so {@code producer.send} (which blocks when the buffer
 * is full) never runs on the event loop and batches leave in the order they were built.
 *
 * <p>Accounting: {@link #pending} counts records handed to the producer and not yet acknowledged
 * (the runtime's back-pressure threshold); a record the producer fails is reported to its origin
 * once per origin ({@link Origin#failed}) so the runtime can rewind that task. {@link
 * #afterAcknowledged} runs an action on a worker once every record dispatched before it has been
 * acknowledged or has failed — what a checkpoint needs — without holding up the sends that follow.
 *
 * <p>Methods other than {@link #pending} are called on the runtime's event loop.
 */
final class OrderedSender implements Outputs {

  /** Who emitted a record: told when one of its records could not be sent. */
  interface Origin {
    /** Called on a producer or worker thread; must be thread-safe and quick. */
    void failed(Exception e);
  }

  private record Outgoing(
      ProducerRecord<byte[], byte[]> record, Origin origin, TaskOutput.Acknowledged acknowledged) {}

  private final Vertx vertx;
  private final Context context;
  private final Producer<byte[], byte[]> producer;
  private final Set<Future<Void>> unacknowledgedBatches = new HashSet<>();
  private final AtomicLong pending = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private final AtomicLong failuresSinceSuccess = new AtomicLong();
  private List<Outgoing> buffer = new ArrayList<>();
  private Future<?> last = Future.succeededFuture();

  OrderedSender(Vertx vertx, Context context, Producer<byte[], byte[]> producer) {
    this.vertx = vertx;
    this.context = context;
    this.producer = producer;
  }

  /** The output a task of {@code origin} writes to. */
  TaskOutput outputFor(Origin origin) {
    return new TaskOutput() {
      @Override
      public void send(ProducerRecord<byte[], byte[]> record) {
        buffer.add(new Outgoing(record, origin, null));
      }

      @Override
      public void send(ProducerRecord<byte[], byte[]> record, Acknowledged acknowledged) {
        buffer.add(new Outgoing(record, origin, acknowledged));
      }
    };
  }

  /** Sends, on the ordered worker, every record put since the last call. */
  @Override
  public void dispatch() {
    if (buffer.isEmpty()) {
      return;
    }
    List<Outgoing> batch = buffer;
    buffer = new ArrayList<>();
    pending.addAndGet(batch.size());
    Promise<Void> acknowledged = Promise.promise();
    Future<Void> batchDone = acknowledged.future();
    unacknowledgedBatches.add(batchDone);
    batchDone.onComplete(v -> unacknowledgedBatches.remove(batchDone));
    AtomicInteger left = new AtomicInteger(batch.size());
    last =
        vertx.executeBlocking(
            () -> {
              for (Outgoing o : batch) {
                try {
                  producer.send(
                      o.record(),
                      (metadata, e) -> {
                        if (e != null) {
                          failed(o, e);
                        } else {
                          failuresSinceSuccess.set(0);
                          if (o.acknowledged() != null) {
                            o.acknowledged().at(metadata.partition(), metadata.offset());
                          }
                        }
                        done(left, acknowledged);
                      });
                } catch (RuntimeException e) {
                  failed(o, e);
                  done(left, acknowledged);
                }
              }
              return null;
            },
            true);
  }

  private void done(AtomicInteger left, Promise<Void> acknowledged) {
    pending.decrementAndGet();
    if (left.decrementAndGet() == 0) {
      context.runOnContext(v -> acknowledged.complete());
    }
  }

  private void failed(Outgoing o, Exception e) {
    failures.incrementAndGet();
    failuresSinceSuccess.incrementAndGet();
    o.origin().failed(e);
  }

  /**
   * Runs {@code action} on a worker after every record dispatched so far (this call dispatches what
   * is buffered) has been acknowledged or has failed. Sends dispatched later go on meanwhile.
   */
  <T> Future<T> afterAcknowledged(Callable<T> action) {
    dispatch();
    return Future.join(List.copyOf(unacknowledgedBatches))
        .transform(ar -> vertx.executeBlocking(action, false));
  }

  /** Records handed to the producer and not acknowledged yet. Thread-safe. */
  @Override
  public long pending() {
    return pending.get();
  }

  /** Records the producer failed, ever. Thread-safe. */
  @Override
  public long failures() {
    return failures.get();
  }

  /** Records the producer failed since it last acknowledged one. Thread-safe. */
  @Override
  public long failuresSinceSuccess() {
    return failuresSinceSuccess.get();
  }

  /** Completes when everything dispatched so far has been handed to the producer. */
  Future<?> last() {
    return last;
  }

  /**
   * Dispatches what is left and closes the producer, which waits up to {@code timeout} for the
   * acknowledgements.
   */
  @Override
  public Future<Void> close(Duration timeout) {
    dispatch();
    Future<Void> f =
        last.transform(
            ar ->
                vertx.executeBlocking(
                    () -> {
                      producer.close(timeout);
                      return null;
                    },
                    true));
    last = f;
    return f;
  }
}

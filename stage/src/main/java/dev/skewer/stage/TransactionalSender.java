package dev.skewer.stage;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The {@code exactly_once} sender: one transactional producer per owned partition (a {@link
 * Channel}), whose current transaction holds everything the partition's task emits between two
 * checkpoints. {@link PartitionOwnership} opens a channel when it takes a partition over (the
 * producer's {@code initTransactions()} fences every earlier producer of the partition's
 * transactional id and aborts its open transaction), commits it at each checkpoint and closes it
 * when the partition is given up.
 *
 * <p>Each channel makes its producer calls one after another on Vert.x workers — one chain per
 * partition, so partitions do not wait for each other's commits — and can hold its outputs: what a
 * task emits after a checkpoint's snapshot waits on the event loop while that checkpoint's
 * transaction commits, and enters the next transaction. Held records count as {@link #pending}, so
 * back-pressure bounds them too.
 *
 * <p>Methods other than {@link #pending}, {@link #failures} and {@link #failuresSinceSuccess} are
 * called on the runtime's event loop.
 */
final class TransactionalSender implements Outputs {

  /** A use of a channel's producer, on a worker. */
  @FunctionalInterface
  interface ProducerCall<T> {
    T call(Producer<byte[], byte[]> producer) throws Exception;
  }

  private final Vertx vertx;
  private final StageClients clients;
  private final Duration transactionTimeout;
  private final AtomicLong pending = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private final AtomicLong failuresSinceSuccess = new AtomicLong();
  private final Set<Channel> channels = new LinkedHashSet<>();

  TransactionalSender(Vertx vertx, StageClients clients, Duration transactionTimeout) {
    this.vertx = vertx;
    this.clients = clients;
    this.transactionTimeout = transactionTimeout;
  }

  /**
   * Opens the channel of {@code transactionalId}: creates its producer and initialises its
   * transactions on a worker ({@link Channel#initialised}). A record of it that fails is reported
   * to {@code origin}.
   */
  Channel open(String transactionalId, OrderedSender.Origin origin) {
    Channel c = new Channel(transactionalId, origin);
    channels.add(c);
    c.initialised =
        vertx.executeBlocking(
            () -> {
              Producer<byte[], byte[]> p =
                  clients.transactionalProducer(transactionalId, transactionTimeout);
              c.producer = p;
              p.initTransactions();
              return null;
            },
            false);
    c.last = c.initialised;
    return c;
  }

  @Override
  public void dispatch() {
    for (Channel c : channels) {
      c.dispatch();
    }
  }

  @Override
  public long pending() {
    return pending.get();
  }

  @Override
  public long failures() {
    return failures.get();
  }

  @Override
  public long failuresSinceSuccess() {
    return failuresSinceSuccess.get();
  }

  /** Closes every channel still open (their open transactions are aborted by the broker). */
  @Override
  public Future<Void> close(Duration timeout) {
    List<Future<Void>> closing = new ArrayList<>();
    for (Channel c : List.copyOf(channels)) {
      closing.add(c.close(timeout));
    }
    return Future.join(closing).mapEmpty();
  }

  private record Outgoing(
      ProducerRecord<byte[], byte[]> record, TaskOutput.Acknowledged acknowledged) {}

  /** One partition's transactional producer and its outbox. Event loop only, except as noted. */
  final class Channel {
    private final String transactionalId;
    private final OrderedSender.Origin origin;
    private volatile Producer<byte[], byte[]> producer;
    private volatile boolean closed;
    private List<Outgoing> outbox = new ArrayList<>();
    private boolean held;
    private Future<Void> initialised;
    private Future<?> last;

    private Channel(String transactionalId, OrderedSender.Origin origin) {
      this.transactionalId = transactionalId;
      this.origin = origin;
    }

    /** Completes once the producer exists and has fenced its predecessors. */
    Future<Void> initialised() {
      return initialised;
    }

    /** Where the partition's task writes: into the channel's current (or next) transaction. */
    TaskOutput output() {
      return new TaskOutput() {
        @Override
        public void send(ProducerRecord<byte[], byte[]> record) {
          send(record, null);
        }

        @Override
        public void send(ProducerRecord<byte[], byte[]> record, Acknowledged acknowledged) {
          if (!closed) {
            outbox.add(new Outgoing(record, acknowledged));
            pending.incrementAndGet();
          }
        }
      };
    }

    /** Keeps what is emitted from now on out of the transaction being committed. */
    void hold() {
      held = true;
    }

    /** Lets held outputs go into the (new) transaction. */
    void release() {
      held = false;
      dispatch();
    }

    /** Sends the outbox unless held or closed. */
    void dispatch() {
      if (held || closed || outbox.isEmpty()) {
        return;
      }
      List<Outgoing> batch = outbox;
      outbox = new ArrayList<>();
      run(
          p -> {
            for (Outgoing o : batch) {
              send(p, o);
            }
            return null;
          });
    }

    private void send(Producer<byte[], byte[]> p, Outgoing o) {
      try {
        p.send(
            o.record(),
            (metadata, e) -> {
              pending.decrementAndGet();
              if (e != null) {
                failed(e);
              } else {
                failuresSinceSuccess.set(0);
                if (o.acknowledged() != null) {
                  o.acknowledged().at(metadata.partition(), metadata.offset());
                }
              }
            });
      } catch (RuntimeException e) {
        pending.decrementAndGet();
        failed(e);
      }
    }

    /** Called on producer or worker threads. */
    private void failed(Exception e) {
      if (!closed) {
        failures.incrementAndGet();
        failuresSinceSuccess.incrementAndGet();
        origin.failed(e);
      }
    }

    /**
     * Runs {@code call} with the producer on a worker, after every call and send of this channel
     * before it; completes on the event loop.
     */
    <T> Future<T> run(ProducerCall<T> call) {
      Future<T> f =
          last.transform(
              ar ->
                  vertx.executeBlocking(
                      () -> {
                        Producer<byte[], byte[]> p = producer;
                        if (p == null) {
                          throw new IllegalStateException(
                              "no producer for " + transactionalId + ": " + initialised.cause());
                        }
                        return call.call(p);
                      },
                      false));
      last = f;
      return f;
    }

    /**
     * Drops the outbox and closes the producer after the calls before it, waiting up to {@code
     * timeout} for what it still sends (an open transaction is left for the broker to abort — at
     * once when the next owner initialises, else after the transaction timeout). Idempotent.
     */
    Future<Void> close(Duration timeout) {
      if (!closed) {
        closed = true;
        pending.addAndGet(-outbox.size());
        outbox = new ArrayList<>();
        channels.remove(this);
        last =
            last.transform(
                ar ->
                    vertx.executeBlocking(
                        () -> {
                          Producer<byte[], byte[]> p = producer;
                          if (p != null) {
                            try {
                              p.close(timeout);
                            } catch (RuntimeException e) {
                              // a fenced or failed producer may refuse to close cleanly: it is
                              // gone either way, and the broker aborts what it left open
                            }
                          }
                          return null;
                        },
                        false));
      }
      return last.mapEmpty();
    }

    boolean closed() {
      return closed;
    }

    String transactionalId() {
      return transactionalId;
    }
  }
}

package dev.skewer.stage;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CloseOptions.GroupMembershipOperation;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The poll loop: one thread that owns the Kafka consumer, the way Kafka Streams' stream thread
 * does. It hands each poll batch to the runtime's event loop and takes the next only when the event
 * loop grants a credit (back-pressure); while it waits it pauses its partitions and keeps polling,
 * so the group sees it alive and rebalances still run. Every other use of the consumer (seek,
 * pause, commit) is a command queued here and run between polls.
 *
 * <p>Partitions it is assigned are held (paused) until the runtime has restored them and {@link
 * #release released} them. Each seek of a partition starts a new <em>generation</em>; every batch
 * carries the generation of each of its partitions, so the runtime can tell records fetched before
 * a seek (a rewind) from those after it.
 *
 * <p>Rebalance callbacks run on this thread: assignments and losses are forwarded to the event
 * loop; a revocation waits (bounded) until the event loop has checkpointed the revoked partitions,
 * running queued commands meanwhile, so their last state is stored before another member takes
 * them. {@link #confirmMembership} asks the group for a rebalance and completes after its
 * assignment has reached the event loop: a member paused for longer than its session learns there,
 * from the group, that its partitions are lost.
 */
final class ConsumerLoop {

  private static final Logger LOG = LoggerFactory.getLogger(ConsumerLoop.class);
  private static final Duration BACK_PRESSURE_POLL = Duration.ofMillis(50);
  private static final long CREDIT_WAIT_MS = 200;
  private static final Duration COMMITTED_TIMEOUT = Duration.ofSeconds(60);

  /** Batches handed to the event loop ahead of its processing (one in work, one waiting). */
  static final int INITIAL_CREDITS = 2;

  /** The event loop's side; every method is called on the runtime's context. */
  interface Handler {
    void assigned(Set<Integer> partitions);

    Future<Void> revoked(Set<Integer> partitions);

    void lost(Set<Integer> partitions);

    /**
     * One poll batch; {@code generations} maps each of its partitions to the generation its records
     * belong to.
     */
    void records(ConsumerRecords<byte[], byte[]> records, Map<Integer, Integer> generations);

    void pollFailed(RuntimeException e);
  }

  /** Where a partition was positioned by a seek: the new generation and the next offset. */
  record Position(int generation, long offset) {}

  private final Consumer<byte[], byte[]> consumer;
  private final String topic;
  private final Context context;
  private final Handler handler;
  private final Duration pollTimeout;
  private final Duration revokeTimeout;
  private final Thread thread;
  private final Queue<Command<?>> commands = new ConcurrentLinkedQueue<>();
  private final AtomicInteger credits = new AtomicInteger(INITIAL_CREDITS);
  private final Object signal = new Object();
  private final Promise<Void> closed;
  private volatile boolean closing;
  private volatile boolean terminated;

  // poll-thread state
  private final Set<TopicPartition> assigned = new HashSet<>();
  private final Rebalance rebalance = new Rebalance();
  private final Set<TopicPartition> held = new HashSet<>();
  private final Map<Integer, Integer> generations = new HashMap<>();
  private final Queue<Promise<Void>> membershipWaiters = new ConcurrentLinkedQueue<>();
  private boolean pausedForBackPressure;
  private Metric connectionCount;
  private boolean connectionMetricLooked;

  // published for the event loop
  private final Map<Integer, Long> lag = new ConcurrentHashMap<>();
  private volatile boolean brokerReachable = true;

  ConsumerLoop(
      Consumer<byte[], byte[]> consumer,
      String topic,
      Context context,
      Handler handler,
      Duration pollTimeout,
      Duration revokeTimeout,
      String threadName) {
    this.consumer = consumer;
    this.topic = topic;
    this.context = context;
    this.handler = handler;
    this.pollTimeout = pollTimeout;
    this.revokeTimeout = revokeTimeout;
    this.closed = Promise.promise();
    this.thread = new Thread(this::run, threadName);
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** One more batch may be handed to the event loop. Thread-safe. */
  void grant() {
    credits.incrementAndGet();
    wake(false);
  }

  /** Pauses a partition until {@link #release}: it is being restored or rewound. */
  Future<Void> hold(int partition) {
    return submit(
        c -> {
          TopicPartition tp = tp(partition);
          if (assigned.contains(tp) && held.add(tp)) {
            c.pause(List.of(tp));
          }
          return null;
        });
  }

  /** Lets a held partition's records flow again. */
  Future<Void> release(int partition) {
    return submit(
        c -> {
          TopicPartition tp = tp(partition);
          if (held.remove(tp) && assigned.contains(tp) && !pausedForBackPressure) {
            c.resume(List.of(tp));
          }
          return null;
        });
  }

  /**
   * Moves a partition to {@code offset}, or without one to its start (or end with {@code latest}),
   * and starts a new generation.
   */
  Future<Position> seek(int partition, OptionalLong offset, boolean latest) {
    return submit(
        c -> {
          TopicPartition tp = tp(partition);
          if (!assigned.contains(tp)) {
            throw new IllegalStateException("partition " + partition + " is no longer assigned");
          }
          if (offset.isPresent()) {
            c.seek(tp, offset.getAsLong());
          } else if (latest) {
            c.seekToEnd(List.of(tp));
          } else {
            c.seekToBeginning(List.of(tp));
          }
          long position = c.position(tp, Duration.ofSeconds(30));
          int generation = generations.merge(partition, 1, Integer::sum);
          return new Position(generation, position);
        });
  }

  /**
   * Asks the group to rebalance; completes on the runtime's context once the assignment that
   * rebalance gives has been handed to the handler. By then a member the group had already dropped
   * (paused past its session timeout) has had its partitions reported lost, and one still in the
   * group has them confirmed. With the cooperative assignor a member keeps its partitions through
   * such a rebalance. Requests made while one is pending share it.
   */
  Future<Void> confirmMembership() {
    Promise<Void> confirmed = Promise.promise();
    submit(
            c -> {
              membershipWaiters.add(confirmed);
              c.enforceRebalance("a partition's producer or checkpoint was fenced");
              return null;
            })
        .onFailure(confirmed::tryFail);
    return confirmed.future();
  }

  /**
   * Completes on the runtime's context once this consumer holds an assignment of a generation other
   * than {@code staleGeneration} — at once if it already does, else after its next assignment has
   * been handed to the handler. Used when the group refused offsets for a stale generation: a
   * rebalance is under way (or this member was dropped, and learns so at its next heartbeat), and
   * its outcome says whether the partition is still this member's. Enforces no rebalance. Thread-
   * safe.
   */
  Future<Void> awaitAssignmentAfter(int staleGeneration) {
    Promise<Void> assigned = Promise.promise();
    submit(
            c -> {
              if (c.groupMetadata().generationId() != staleGeneration) {
                return true; // the assignment of the newer generation was handed over already
              }
              membershipWaiters.add(assigned);
              return false;
            })
        .onSuccess(
            already -> {
              if (already) {
                assigned.tryComplete();
              }
            })
        .onFailure(assigned::tryFail);
    return assigned.future();
  }

  /**
   * Commits consumer offsets (so lag is visible to Kafka's tools), with their metadata; partitions
   * no longer assigned are left out.
   */
  Future<Void> commit(Map<Integer, OffsetAndMetadata> nextOffsets) {
    return submit(
        c -> {
          Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
          nextOffsets.forEach(
              (p, o) -> {
                if (assigned.contains(tp(p))) {
                  offsets.put(tp(p), o);
                }
              });
          if (!offsets.isEmpty()) {
            c.commitAsync(
                offsets,
                (committed, e) -> {
                  if (e != null) {
                    LOG.debug("offset commit of {} failed: {}", committed, e.toString());
                  }
                });
          }
          return null;
        });
  }

  /**
   * Commits a new owner's claim on a partition and waits for the group's answer, on the poll
   * thread, so no rebalance can come between the check that the partition is still assigned here
   * and the commit. Fails when it is not, or when the group refuses the commit (this member is not
   * in its current generation: a rebalance moved on, or this member was dropped).
   */
  Future<Void> claim(int partition, OffsetAndMetadata claim) {
    return submit(
        c -> {
          TopicPartition tp = tp(partition);
          if (!assigned.contains(tp)) {
            throw new IllegalStateException("partition " + partition + " is no longer assigned");
          }
          c.commitSync(Map.of(tp, claim), COMMITTED_TIMEOUT);
          return null;
        });
  }

  /**
   * The offset committed for a partition in the group (null: none), read on the poll thread. The
   * consumer asks the broker for stable offsets ({@code require_stable}): while a transaction that
   * commits offsets for the partition is still being completed, the broker makes it wait.
   */
  Future<OffsetAndMetadata> committed(int partition) {
    return submit(c -> c.committed(Set.of(tp(partition)), COMMITTED_TIMEOUT).get(tp(partition)));
  }

  /** The consumer's group metadata, for offsets committed in a transaction. Thread-safe. */
  Future<ConsumerGroupMetadata> groupMetadata() {
    return submit(Consumer::groupMetadata);
  }

  /** Records waiting on the broker for a partition (0 when unknown). Thread-safe. */
  long lag(int partition) {
    return lag.getOrDefault(partition, 0L);
  }

  /** Whether the consumer holds a broker connection. Thread-safe. */
  boolean brokerReachable() {
    return brokerReachable;
  }

  /**
   * Stops polling and closes the consumer (which revokes its partitions through the handler). The
   * future completes on the runtime's context.
   */
  Future<Void> close() {
    closing = true;
    wake(true);
    return closed.future();
  }

  /**
   * Runs {@code action} with the consumer on the poll thread; completes on the runtime context.
   * Thread-safe.
   */
  <T> Future<T> submit(Function<Consumer<byte[], byte[]>, T> action) {
    Promise<T> promise = Promise.promise();
    commands.add(new Command<>(action, promise));
    wake(true);
    if (terminated) {
      runCommands(); // the loop is gone: the consumer is closed, so this fails them promptly
    }
    return promise.future();
  }

  /** A queued use of the consumer and the promise it completes on the runtime's context. */
  private final class Command<T> {
    private final Function<Consumer<byte[], byte[]>, T> action;
    private final Promise<T> promise;

    Command(Function<Consumer<byte[], byte[]>, T> action, Promise<T> promise) {
      this.action = action;
      this.promise = promise;
    }

    /** Runs it; a wakeup meant for poll escapes so the command can be run again. */
    void run() {
      T result;
      try {
        result = action.apply(consumer);
      } catch (WakeupException e) {
        throw e;
      } catch (RuntimeException e) {
        context.runOnContext(v -> promise.tryFail(e));
        return;
      }
      context.runOnContext(v -> promise.tryComplete(result));
    }
  }

  private void wake(boolean interruptPoll) {
    synchronized (signal) {
      signal.notifyAll();
    }
    if (interruptPoll) {
      consumer.wakeup();
    }
  }

  private void run() {
    try {
      consumer.subscribe(List.of(topic), rebalance);
      while (!closing) {
        runCommands();
        if (credits.get() <= 0 && !awaitCredit()) {
          pauseForBackPressure();
          poll(BACK_PRESSURE_POLL); // keeps the group alive; paused partitions return nothing
          continue;
        }
        resumeAfterBackPressure();
        poll(pollTimeout);
      }
    } catch (RuntimeException | Error e) {
      LOG.error("the poll loop of topic {} stopped", topic, e);
    } finally {
      runCommands();
      try {
        // a static member (group.instance.id) stays in its group after close unless told to leave:
        // leave, so that a stopped process's partitions move at once, as a dynamic member's do
        consumer.close(
            CloseOptions.groupMembershipOperation(GroupMembershipOperation.LEAVE_GROUP)
                .withTimeout(Duration.ofSeconds(10)));
      } catch (RuntimeException e) {
        LOG.warn("closing the consumer of topic {} failed", topic, e);
      }
      terminated = true;
      runCommands();
      List<Promise<Void>> waiting = drainMembershipWaiters();
      context.runOnContext(
          v -> {
            waiting.forEach(w -> w.tryFail("the consumer is closed"));
            closed.tryComplete();
          });
    }
  }

  /** Waits a little for a credit; true if one arrived. */
  private boolean awaitCredit() {
    synchronized (signal) {
      if (credits.get() <= 0 && commands.isEmpty() && !closing) {
        try {
          signal.wait(CREDIT_WAIT_MS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          closing = true;
        }
      }
    }
    return credits.get() > 0;
  }

  private void poll(Duration timeout) {
    ConsumerRecords<byte[], byte[]> records;
    try {
      records = consumer.poll(timeout);
    } catch (WakeupException e) {
      return;
    } catch (InterruptException e) {
      closing = true;
      return;
    } catch (FencedInstanceIdException e) {
      // another process joined the group under this one's group.instance.id: the group is its now
      LOG.error(
          "consumer of topic {} fenced: another process joined the group with the same"
              + " group.instance.id (a second process with this name?); this one stops consuming",
          topic,
          e);
      rebalance.onPartitionsLost(new ArrayList<>(assigned));
      closing = true;
      return;
    } catch (RuntimeException e) {
      context.runOnContext(v -> handler.pollFailed(e));
      sleepQuietly(100);
      return;
    }
    publishGauges();
    if (!records.isEmpty()) {
      credits.decrementAndGet();
      Map<Integer, Integer> batchGenerations = new HashMap<>();
      for (TopicPartition tp : records.partitions()) {
        batchGenerations.put(tp.partition(), generations.getOrDefault(tp.partition(), 0));
      }
      context.runOnContext(v -> handler.records(records, batchGenerations));
    }
  }

  private void runCommands() {
    Command<?> command;
    while ((command = commands.poll()) != null) {
      runToCompletion(command);
    }
  }

  /**
   * Runs a command, again at once each time a wakeup meant for poll hits it instead: each {@link
   * #submit} wakes the consumer, so a command submitted while another runs makes that one's
   * blocking call (an offset fetch, a position, a synchronous commit) throw. The exception spends
   * the wakeup, so the next attempt runs undisturbed unless yet another command came meanwhile.
   * (Putting the command back and polling lost the wakeup: the poll then waited its whole timeout
   * before the commands ran again, ~100 ms for each of the partitions a process takes over at
   * once.)
   */
  private static void runToCompletion(Command<?> command) {
    while (true) {
      try {
        command.run();
        return;
      } catch (WakeupException e) {
        // spent: run it again
      }
    }
  }

  private void pauseForBackPressure() {
    if (!pausedForBackPressure) {
      pausedForBackPressure = true;
      consumer.pause(assigned);
    }
  }

  private void resumeAfterBackPressure() {
    if (pausedForBackPressure) {
      pausedForBackPressure = false;
      List<TopicPartition> flowing = new ArrayList<>(assigned);
      flowing.removeAll(held);
      consumer.resume(flowing);
    }
  }

  private void publishGauges() {
    for (TopicPartition tp : assigned) {
      OptionalLong l = consumer.currentLag(tp);
      lag.put(tp.partition(), l.isPresent() ? l.getAsLong() : 0L);
    }
    if (!connectionMetricLooked) {
      connectionMetricLooked = true;
      for (Map.Entry<MetricName, ? extends Metric> e : consumer.metrics().entrySet()) {
        if (e.getKey().name().equals("connection-count")
            && e.getKey().group().equals("consumer-metrics")) {
          connectionCount = e.getValue();
        }
      }
    }
    if (connectionCount != null) {
      Object v = connectionCount.metricValue();
      brokerReachable = !(v instanceof Number n) || n.doubleValue() > 0;
    }
  }

  private List<Promise<Void>> drainMembershipWaiters() {
    List<Promise<Void>> drained = new ArrayList<>();
    Promise<Void> w;
    while ((w = membershipWaiters.poll()) != null) {
      drained.add(w);
    }
    return drained;
  }

  private TopicPartition tp(int partition) {
    return new TopicPartition(topic, partition);
  }

  private static Set<Integer> ids(Collection<TopicPartition> partitions, String topic) {
    Set<Integer> ids = new HashSet<>();
    for (TopicPartition tp : partitions) {
      if (tp.topic().equals(topic)) {
        ids.add(tp.partition());
      }
    }
    return ids;
  }

  private static void sleepQuietly(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Bridges the group's rebalance callbacks (on the poll thread) to the handler. */
  private final class Rebalance implements ConsumerRebalanceListener {

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      List<TopicPartition> mine = new ArrayList<>();
      for (TopicPartition tp : partitions) {
        if (tp.topic().equals(topic)) {
          mine.add(tp);
          generations.putIfAbsent(tp.partition(), 0);
        }
      }
      assigned.addAll(mine);
      held.addAll(mine);
      consumer.pause(mine); // until restored
      Set<Integer> ids = ids(mine, topic);
      List<Promise<Void>> confirmed = drainMembershipWaiters();
      context.runOnContext(
          v -> {
            handler.assigned(ids);
            confirmed.forEach(Promise::tryComplete);
          });
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      Set<Integer> ids = forget(partitions);
      if (ids.isEmpty()) {
        return;
      }
      CompletableFuture<Void> done = new CompletableFuture<>();
      context.runOnContext(v -> handler.revoked(ids).onComplete(ar -> done.complete(null)));
      long deadline = System.nanoTime() + revokeTimeout.toNanos();
      while (!done.isDone()) {
        runCommands(); // the final checkpoints may commit offsets through us
        try {
          done.get(10, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
          if (System.nanoTime() > deadline) {
            LOG.warn(
                "final checkpoints of revoked partitions {} of {} took longer than {}",
                ids,
                topic,
                revokeTimeout);
            return;
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        } catch (ExecutionException e) {
          return;
        }
      }
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      Set<Integer> ids = forget(partitions);
      if (!ids.isEmpty()) {
        context.runOnContext(v -> handler.lost(ids));
      }
    }

    private Set<Integer> forget(Collection<TopicPartition> partitions) {
      assigned.removeAll(partitions);
      held.removeAll(partitions);
      Set<Integer> ids = ids(partitions, topic);
      ids.forEach(lag::remove);
      return ids;
    }
  }
}

package dev.skewer.stage;

import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.health.Readiness;
import dev.skewer.core.job.Guarantee;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One stage's runtime: it consumes the input topic as a member of the stage's consumer group and
 * drives one {@link PartitionTask} per owned partition. Wiring of the shared parts: the {@link
 * ConsumerLoop} polls, {@link OrderedSender} ({@code at_least_once}) or {@link TransactionalSender}
 * ({@code exactly_once}, one transactional producer per owned partition) sends, {@link
 * PartitionOwnership} takes partitions over, checkpoints, rewinds and fences them.
 *
 * <p>The job's guarantee ({@link StageSettings#guarantee}) decides what a checkpoint is: {@code
 * at_least_once} stores it once every output before it is acknowledged; {@code exactly_once} makes
 * it one Kafka transaction with the outputs since the previous checkpoint and the input offset, so
 * {@code read_committed} readers see outputs only at checkpoints, and never those of an owner that
 * was replaced.
 *
 * <p>Per poll batch, on the event loop: the records of each consuming partition go to its task in
 * offset order (records of a partition being restored or rewound, or fetched before its last seek,
 * are skipped: they are read again), then {@link PartitionTask#endOfBatch}; everything emitted is
 * dispatched to the sender. The next batch is taken once fewer than {@code maxPendingRecords}
 * records await acknowledgement (back-pressure). Every tick interval each task is ticked with how
 * long its partition has been silent; every checkpoint interval each is checkpointed.
 *
 * <p>Create and use it on one Vert.x context (a verticle's {@code start}); its methods are not
 * thread-safe except {@link #readiness}, {@link #ownedPartitions}, {@link #pendingRecords} and
 * {@link #sendFailures}. {@link #stop} drains, checkpoints, commits and closes, in that order.
 */
public final class PartitionRuntime<T extends PartitionTask> {

  private static final Logger LOG = LoggerFactory.getLogger(PartitionRuntime.class);
  private static final long BACK_PRESSURE_RECHECK_MS = 5;

  private final Vertx vertx;
  private final Context context;
  private final StageSettings settings;
  private final StageClients clients;
  private final TaskFactory<T> factory;
  private final CheckpointStore store;
  private final MeterRegistry registry;
  private final Clock clock;

  private ConsumerLoop loop;
  private Outputs sender;
  private volatile Consumer<byte[], byte[]> consumer;
  private volatile Producer<byte[], byte[]> producer;
  private PartitionOwnership<T> ownership;
  private Counter sendFailureCounter;
  private long tickTimer = -1;
  private long checkpointTimer = -1;
  private long lastTickMs = Long.MAX_VALUE;
  private boolean throttledSinceTick;
  private boolean joined;
  private boolean stopping;
  private Future<Void> stopped;
  private RuntimeException lastPollFailure;
  private long lastPollFailureMs;
  private long reportedSendFailures;
  private volatile Readiness readiness = Readiness.down("starting");
  private volatile Set<Integer> ownedView = Set.of();

  /**
   * A runtime bound to the current Vert.x context.
   *
   * @throws IllegalStateException when not called on a Vert.x context
   */
  public PartitionRuntime(
      Vertx vertx,
      StageSettings settings,
      StageClients clients,
      TaskFactory<T> factory,
      CheckpointStore store,
      MeterRegistry registry,
      Clock clock) {
    Context current = Vertx.currentContext();
    if (current == null || current.owner() != vertx) {
      throw new IllegalStateException(
          "create a PartitionRuntime on a context of its Vert.x instance (a verticle's start)");
    }
    this.vertx = vertx;
    this.context = current;
    this.settings = settings;
    this.clients = clients;
    this.factory = factory;
    this.store = store;
    this.registry = registry;
    this.clock = clock;
  }

  /**
   * Creates the clients (on a worker), subscribes and starts polling. With {@code exactly_once} no
   * shared producer is made: each partition gets its own when it is taken over.
   */
  public Future<Void> start() {
    String tag = settings.stage();
    String id = settings.instanceId();
    boolean exactlyOnce = settings.guarantee() == Guarantee.EXACTLY_ONCE;
    return vertx
        .executeBlocking(
            () -> {
              Producer<byte[], byte[]> created = exactlyOnce ? null : clients.producer();
              try {
                return new Clients(clients.consumer(), created);
              } catch (RuntimeException e) {
                if (created != null) {
                  created.close(Duration.ZERO);
                }
                throw e;
              }
            })
        .map(
            c -> {
              consumer = c.consumer();
              producer = c.producer();
              sender =
                  exactlyOnce
                      ? new TransactionalSender(vertx, clients, settings.transactionTimeout())
                      : new OrderedSender(vertx, context, producer);
              loop =
                  new ConsumerLoop(
                      consumer,
                      settings.inputTopic(),
                      context,
                      new Handler(),
                      settings.pollTimeout(),
                      settings.revokeTimeout(),
                      "skewer-" + tag + "-" + id + "-poll");
              ownership =
                  new PartitionOwnership<>(
                      vertx,
                      context,
                      settings,
                      factory,
                      store,
                      sender,
                      loop,
                      registry,
                      clock,
                      this::updateViews);
              sendFailureCounter =
                  Counter.builder(StageMetrics.SEND_FAILURES).tag(tag, id).register(registry);
              Gauge.builder(StageMetrics.PRODUCER_PENDING, sender, Outputs::pending)
                  .tag(tag, id)
                  .register(registry);
              Gauge.builder(StageMetrics.OWNED, this, r -> r.ownedView.size())
                  .tag(tag, id)
                  .register(registry);
              Gauge.builder(StageMetrics.FAILING, this, r -> r.failingView)
                  .tag(tag, id)
                  .register(registry);
              tickTimer = vertx.setPeriodic(settings.tickInterval().toMillis(), t -> tick());
              checkpointTimer =
                  vertx.setPeriodic(
                      settings.checkpointInterval().toMillis(), t -> ownership.checkpointAll());
              loop.start();
              LOG.info(
                  "{}={} consuming topic={} (checkpoints every {}, {})",
                  tag,
                  id,
                  settings.inputTopic(),
                  settings.checkpointInterval(),
                  settings.guarantee());
              return null;
            });
  }

  private record Clients(Consumer<byte[], byte[]> consumer, Producer<byte[], byte[]> producer) {}

  private volatile int failingView;
  private Runnable afterBatch = () -> {};

  // ---- batches

  /**
   * Runs {@code hook} on the event loop after each batch of records is processed. While a backlog
   * keeps the event loop busy, the consumer hands it the next batch while it works on the last, so
   * its task queue never empties and due timers wait (seconds, on a cold JVM at the start of a
   * load): a job that must keep its rhythm then can run here. Set before {@link #start}; the hook
   * must be cheap when it has nothing to do, and its exceptions are logged, not propagated.
   */
  public void afterEachBatch(Runnable hook) {
    this.afterBatch = Objects.requireNonNull(hook, "hook");
  }

  private void records(ConsumerRecords<byte[], byte[]> records, Map<Integer, Integer> generations) {
    if (stopping) {
      return;
    }
    long nowMs = clock.millis();
    for (TopicPartition tp : records.partitions()) {
      PartitionOwnership<T>.Owned o = ownership.active(tp.partition());
      if (o == null || generations.get(tp.partition()) != o.generation) {
        continue; // restoring, rewound or revoked: these records are read again after the seek
      }
      ownership.process(o, records.records(tp), nowMs);
    }
    sender.dispatch();
    grantWhenDrained();
    try {
      afterBatch.run();
    } catch (RuntimeException e) {
      LOG.warn("{}={}: the after-batch hook failed", settings.stage(), settings.instanceId(), e);
    }
  }

  /** Takes the next batch once the producer has caught up (back-pressure). */
  private void grantWhenDrained() {
    if (stopping) {
      return;
    }
    if (sender.pending() > settings.maxPendingRecords()) {
      throttledSinceTick = true;
      vertx.setTimer(BACK_PRESSURE_RECHECK_MS, t -> grantWhenDrained());
      return;
    }
    loop.grant();
  }

  // ---- ticks

  private void tick() {
    if (stopping) {
      return;
    }
    long nowMs = clock.millis();
    long sinceLastTick = nowMs - lastTickMs;
    lastTickMs = nowMs;
    // time in which records could not have arrived is not silence: this process was not running
    // (GC, SIGSTOP), the broker is unreachable, or we held polling back
    boolean notSilence =
        sinceLastTick > Math.max(2_000, 5 * settings.tickInterval().toMillis())
            || !loop.brokerReachable()
            || throttledSinceTick
            || sender.pending() > settings.maxPendingRecords();
    throttledSinceTick = false;
    for (PartitionOwnership<T>.Owned o : List.copyOf(ownership.all())) {
      if (o.state != PartitionOwnership.State.ACTIVE || o.encoding) {
        continue; // restoring, or its snapshot is being encoded: the task is not called meanwhile
      }
      if (notSilence || loop.lag(o.partition) > 0) {
        o.lastActivityMs = nowMs; // records are waiting on the broker: behind, not silent
      }
      try {
        o.task.tick(new PartitionActivity(nowMs, Math.max(0, nowMs - o.lastActivityMs)), o.output);
      } catch (RuntimeException e) {
        LOG.error(
            "{}={} tick of partition {} failed",
            settings.stage(),
            settings.instanceId(),
            o.partition,
            e);
        ownership.rewind(o, "the task failed on a tick: " + e);
      }
    }
    ownership.reportSlowTakeOvers(nowMs);
    sender.dispatch();
    long failures = sender.failures();
    if (failures > reportedSendFailures) {
      sendFailureCounter.increment(failures - reportedSendFailures);
      reportedSendFailures = failures;
    }
    updateViews();
  }

  private void updateViews() {
    Set<Integer> active = new HashSet<>();
    int restoring = 0;
    for (PartitionOwnership<T>.Owned o : ownership.all()) {
      if (o.state == PartitionOwnership.State.ACTIVE) {
        active.add(o.partition);
      } else {
        restoring++;
      }
    }
    ownedView = Set.copyOf(active);
    failingView = ownership.failing();
    Readiness r;
    List<Integer> waiting = new ArrayList<>();
    for (int p : ownership.assignedByGroup()) {
      if (!active.contains(p)) {
        waiting.add(p);
      }
    }
    Collections.sort(waiting);
    long failedSends = sender == null ? 0 : sender.failuresSinceSuccess();
    if (stopping) {
      r = Readiness.down("stopping");
    } else if (!joined) {
      r =
          Readiness.down(
              "waiting for the consumer group to assign partitions of " + settings.inputTopic());
    } else if (failingView > 0) {
      r = Readiness.down(failingView + " partition(s) failing repeatedly; see the ERROR log");
    } else if (!waiting.isEmpty()) {
      r =
          Readiness.down(
              "partitions " + waiting + " of " + settings.inputTopic() + " not restored yet");
    } else if (failedSends > 0) {
      r = Readiness.down(failedSends + " produced records failed since the last success");
    } else if (lastPollFailure != null && clock.millis() - lastPollFailureMs < 10_000) {
      r = Readiness.down("polling fails: " + lastPollFailure);
    } else {
      r =
          Readiness.up(
              active.size()
                  + " partitions of "
                  + settings.inputTopic()
                  + " restored and consuming");
    }
    readiness = r;
  }

  // ---- for the stages

  /**
   * Calls {@code action} for each consuming partition's task; on the runtime's context only. A task
   * whose snapshot is being encoded on a worker is included: the action may read it, and change
   * only what {@link PartitionTask#snapshot} copied when it captured the state.
   */
  public void forEachActive(BiConsumer<Integer, T> action) {
    for (PartitionOwnership<T>.Owned o : List.copyOf(ownership.all())) {
      if (o.state == PartitionOwnership.State.ACTIVE) {
        action.accept(o.partition, o.task);
      }
    }
  }

  /** Checkpoints every consuming partition now, as the checkpoint timer would (tests). */
  void checkpointNow() {
    context.runOnContext(v -> ownership.checkpointAll());
  }

  /** The stage's consumer once started, else null: for client metrics only. */
  public Consumer<byte[], byte[]> consumer() {
    return consumer;
  }

  /**
   * The stage's shared producer once started, else null: for client metrics only. Null with {@code
   * exactly_once}, where each owned partition has a transactional producer of its own.
   */
  public Producer<byte[], byte[]> producer() {
    return producer;
  }

  /** Whether this runtime is doing its job (thread-safe; refreshed every tick). */
  public Readiness readiness() {
    return readiness;
  }

  /** Partitions owned and consuming (thread-safe; refreshed every tick). */
  public Set<Integer> ownedPartitions() {
    return ownedView;
  }

  /** Records sent and not yet acknowledged (thread-safe). */
  public long pendingRecords() {
    return sender == null ? 0 : sender.pending();
  }

  /** Records that could not be sent, ever (thread-safe). */
  public long sendFailures() {
    return sender == null ? 0 : sender.failures();
  }

  /**
   * Stops: no new batches; final checkpoints of every owned partition (after everything sent is
   * acknowledged), offsets committed; the consumer leaves the group; the producer closes.
   * Idempotent.
   */
  public Future<Void> stop() {
    if (stopped != null) {
      return stopped;
    }
    stopping = true;
    readiness = Readiness.down("stopping");
    if (tickTimer >= 0) {
      vertx.cancelTimer(tickTimer);
    }
    if (checkpointTimer >= 0) {
      vertx.cancelTimer(checkpointTimer);
    }
    if (ownership == null) {
      stopped = Future.succeededFuture();
      return stopped;
    }
    stopped =
        ownership
            .stop()
            .eventually(() -> loop.close())
            .eventually(() -> sender.close(Duration.ofSeconds(10)))
            .onComplete(
                ar ->
                    LOG.info(
                        "{}={} stopped{}",
                        settings.stage(),
                        settings.instanceId(),
                        ar.failed() ? " (" + ar.cause() + ")" : ""));
    return stopped;
  }

  /** The consumer loop's events, on the runtime's context. */
  private final class Handler implements ConsumerLoop.Handler {

    @Override
    public void assigned(Set<Integer> partitions) {
      joined = true;
      LOG.info(
          "{}={} assigned {} of {}",
          settings.stage(),
          settings.instanceId(),
          partitions,
          settings.inputTopic());
      ownership.assigned(partitions);
      updateViews();
    }

    @Override
    public Future<Void> revoked(Set<Integer> partitions) {
      LOG.info(
          "{}={} revoked {} of {}",
          settings.stage(),
          settings.instanceId(),
          partitions,
          settings.inputTopic());
      return ownership.revoked(partitions).onComplete(ar -> updateViews());
    }

    @Override
    public void lost(Set<Integer> partitions) {
      LOG.warn(
          "{}={} lost {} of {} (no longer a group member)",
          settings.stage(),
          settings.instanceId(),
          partitions,
          settings.inputTopic());
      ownership.lost(partitions);
      updateViews();
    }

    @Override
    public void records(
        ConsumerRecords<byte[], byte[]> records, Map<Integer, Integer> generations) {
      PartitionRuntime.this.records(records, generations);
    }

    @Override
    public void pollFailed(RuntimeException e) {
      long nowMs = clock.millis();
      if (lastPollFailure == null || nowMs - lastPollFailureMs > 10_000) {
        LOG.warn("{}={} poll failed", settings.stage(), settings.instanceId(), e);
      }
      lastPollFailure = e;
      lastPollFailureMs = nowMs;
    }
  }
}

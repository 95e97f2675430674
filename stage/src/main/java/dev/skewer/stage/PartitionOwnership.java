package dev.skewer.stage;

import dev.skewer.core.checkpoint.CapturedState;
import dev.skewer.core.checkpoint.Checkpoint;
import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.checkpoint.Saved;
import dev.skewer.core.checkpoint.TakenEpoch;
import dev.skewer.core.concurrent.Unwrapped;
import dev.skewer.core.job.Guarantee;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which partitions this runtime owns, and every rule about owning one — the one place each failover
 * rule lives, for both guarantees:
 *
 * <ul>
 *   <li><b>Take-over.</b> A partition the group assigns is held (paused) and restored on a worker:
 *       a new fencing epoch from the checkpoint store, above the one committed in the group, the
 *       last checkpoint loaded and handed to the {@link TaskFactory}; then the consumer seeks to
 *       the checkpoint's offset (without one, to the start or end) and the partition is released.
 *       If it is revoked meanwhile, the restored task is discarded; a revocation that comes while
 *       the worker takes the epoch waits for it, so the partition's next owner, which can only take
 *       it once the revocation is done, always takes a higher one (a revoked take-over whose worker
 *       has not started takes none). With {@code at_least_once}, a store behind the group's offset
 *       is bypassed (the checkpoint is read back from the checkpoint topic), and the new epoch is
 *       committed in the group as a claim before the partition is released: the group accepts it
 *       only from a member of its current generation. With {@code exactly_once}, before anything
 *       else the partition's transactional producer is created and initialised — which fences every
 *       earlier owner's producer at the broker and aborts its open transaction — and the checkpoint
 *       restored is the one named by the input offset committed in the group ({@link
 *       CommitPointer}): the store's copy when it is that one, else the record read back from the
 *       checkpoint topic.
 *   <li><b>Checkpoints.</b> Periodically and before a partition is given up. The task's state is
 *       captured on the event loop and encoded on a worker, while the partition's records wait
 *       (nothing else of the task is called meanwhile). {@code at_least_once}: then — on the
 *       sender's ordered worker, once every record emitted so far is acknowledged — stored, unless
 *       one of the task's records failed; a checkpoint therefore never covers output that could
 *       still be lost. After it is stored the input offset is committed with a {@link
 *       CommitPointer} to it and to its copy in the checkpoint topic. {@code exactly_once}: one
 *       transaction — snapshot; what the task emits from then on is held for the next transaction;
 *       the partition's producer is flushed; if a record failed the transaction is aborted, else
 *       the checkpoint record, the input offset (with its pointer) and the outputs are committed
 *       together, the store keeps a copy, and a new transaction begins.
 *   <li><b>Rewind.</b> When a record of a task cannot be sent, its checkpoint cannot be stored, a
 *       transaction cannot be committed, or the task throws, the task is dropped and the partition
 *       taken over again from its last stored (committed) checkpoint, under a new epoch — {@code
 *       at_least_once}: once every record sent so far has been acknowledged or has failed; what it
 *       emitted since is emitted again and replaces the old downstream (the new task finds what
 *       already landed, so it does not write it twice; {@code exactly_once}: the old was aborted,
 *       readers never saw it).
 *   <li><b>Fencing.</b> When the store refuses a checkpoint because a newer epoch owns the
 *       partition, or the broker refuses the partition's producer ({@code ProducerFencedException},
 *       {@code InvalidProducerEpochException}), this owner was a zombie: its task is dropped. If
 *       the partition still looks assigned here, the group is asked first ({@link
 *       ConsumerLoop#confirmMembership}, a rebalance): a member paused past its session learns
 *       there that its partitions are lost and takes nothing over — retaking at once would fence
 *       the real owner in turn — while one still in the group keeps the partition and takes it over
 *       again (the newer owner had lost it). When the group refuses a transaction's offsets for a
 *       stale generation ({@code CommitFailedException}: a rebalance is under way, or this member
 *       was dropped), the transaction is aborted and the partition rewound, but taken over again
 *       only once this member has the newer generation's assignment ({@link
 *       ConsumerLoop#awaitAssignmentAfter}), without enforcing another rebalance.
 *   <li><b>Repeated failures</b> (restore, rewind, fencing) of one partition are retried with a
 *       delay doubling from 1 s to 60 s, and the partition counts as failing (not ready) until a
 *       checkpoint beyond the offset where it last failed is stored: a persistent failure ends in a
 *       visible, bounded state, never in a fast loop and never in lost output.
 * </ul>
 *
 * <p>Everything runs on the runtime's event loop, except restores (worker), snapshot encoding
 * (worker), checkpoint stores (the sender's ordered worker) and each partition's producer calls
 * ({@code exactly_once}: its channel's chain of workers).
 */
final class PartitionOwnership<T extends PartitionTask> {

  private static final Logger LOG = LoggerFactory.getLogger(PartitionOwnership.class);
  static final long FIRST_RETRY_DELAY_MS = 1_000;
  static final long MAX_RETRY_DELAY_MS = 60_000;
  static final long SLOW_TAKE_OVER_MS = 10_000;
  static final long STORE_ANSWER_TIMEOUT_MS = 3_000;

  enum State {
    RESTORING,
    ACTIVE
  }

  /** What became of one checkpoint. */
  enum Outcome {
    /** Stored ({@code exactly_once}: committed). */
    SAVED,
    /** A newer owner has the partition. */
    FENCED,
    /** A record emitted before it was lost ({@code exactly_once}: its transaction aborted). */
    LOST_SEND,
    /** {@code exactly_once}: the transaction could not be committed and was aborted. */
    ABORTED,
    /**
     * {@code exactly_once}: the group refused the transaction's offsets for a stale generation (a
     * rebalance moved on, or this member was dropped); the transaction was aborted.
     */
    GROUP_MOVED,
    /** {@code at_least_once}: the store failed; the partition rewinds to its last stored one. */
    FAILED
  }

  /** Consecutive failures of a partition and the input offset it had reached at the last one. */
  private record Failures(int count, long atOffset) {}

  /** One partition from take-over to release. Event loop only, except {@link #failed}. */
  final class Owned implements OrderedSender.Origin {
    final int partition;
    State state = State.RESTORING;
    T task;
    TaskOutput output;
    long epoch;
    int generation;
    long nextOffset;
    long lastActivityMs;
    long lastCreatedMs;
    Future<Outcome> checkpointInFlight;
    boolean encoding; // its snapshot is being encoded on a worker: records wait, ticks are skipped
    final List<List<ConsumerRecord<byte[], byte[]>>> waiting = new ArrayList<>();
    boolean cacheInFlight; // exactly_once: the store's copy of a committed checkpoint
    volatile int refusedGeneration; // exactly_once: the generation of the offsets last sent
    volatile String step = "waiting to restore"; // while RESTORING: what the take-over waits on
    private long stepStartNs = System.nanoTime();
    volatile String stepTimes = ""; // the take-over's steps so far, each with its duration
    volatile boolean storeBypassed; // exactly_once: the store hung at take-over; keep no copies
    final long takeOverStartMs = clock.millis();
    long slowReportedMs;
    TransactionalSender.Channel channel; // exactly_once: the partition's producer
    Future<?> storeStep; // the worker step that takes the epoch, once started
    volatile boolean released; // given up: a store step not yet started takes no epoch
    private T closedTask;
    private final AtomicReference<Exception> sendFailure = new AtomicReference<>();

    Owned(int partition) {
      this.partition = partition;
    }

    /**
     * The take-over moves on to {@code next}; the step it leaves is timed (the event loop and the
     * store's worker take turns, each step starting after the previous one ended).
     */
    void enter(String next) {
      long nowNs = System.nanoTime();
      stepTimes =
          (stepTimes.isEmpty() ? "" : stepTimes + ", ")
              + step
              + " "
              + (nowNs - stepStartNs) / 1_000_000
              + " ms";
      stepStartNs = nowNs;
      step = next;
    }

    @Override
    public void failed(Exception e) {
      if (sendFailure.compareAndSet(null, e)) {
        context.runOnContext(
            v -> {
              if (isFenced(e)) {
                fenced(this, "the broker fenced its producer: " + e);
              } else {
                rewind(this, "a produced record was lost: " + e);
              }
            });
      }
    }
  }

  private final Vertx vertx;
  private final Context context;
  private final StageSettings settings;
  private final TaskFactory<T> factory;
  private final CheckpointStore store;
  private final boolean exactlyOnce;
  private final OrderedSender sender; // at_least_once
  private final TransactionalSender transactions; // exactly_once
  private final ConsumerLoop loop;
  private final Clock clock;
  // the runtime's views (readiness, owned partitions) change with every partition that turns active
  private final Runnable onActivated;
  private final Map<Integer, Owned> owned = new HashMap<>();
  private final Set<Integer> assignedByGroup = new HashSet<>();
  private final Map<Integer, Failures> failures = new HashMap<>();
  private boolean stopping;

  private final Counter restores;
  private final Counter rewinds;
  private final Counter fenced;
  private final Timer checkpointDuration;
  private final DistributionSummary checkpointSize;

  PartitionOwnership(
      Vertx vertx,
      Context context,
      StageSettings settings,
      TaskFactory<T> factory,
      CheckpointStore store,
      Outputs outputs,
      ConsumerLoop loop,
      MeterRegistry registry,
      Clock clock,
      Runnable onActivated) {
    this.vertx = vertx;
    this.onActivated = onActivated;
    this.context = context;
    this.settings = settings;
    this.factory = factory;
    this.store = store;
    this.exactlyOnce = settings.guarantee() == Guarantee.EXACTLY_ONCE;
    this.sender = exactlyOnce ? null : (OrderedSender) outputs;
    this.transactions = exactlyOnce ? (TransactionalSender) outputs : null;
    this.loop = loop;
    this.clock = clock;
    String tag = settings.stage();
    String id = settings.instanceId();
    this.restores = Counter.builder(StageMetrics.RESTORES).tag(tag, id).register(registry);
    this.rewinds = Counter.builder(StageMetrics.REWINDS).tag(tag, id).register(registry);
    this.fenced = Counter.builder(StageMetrics.FENCED).tag(tag, id).register(registry);
    this.checkpointDuration =
        Timer.builder(StageMetrics.CHECKPOINT_DURATION).tag(tag, id).register(registry);
    this.checkpointSize =
        DistributionSummary.builder(StageMetrics.CHECKPOINT_SIZE)
            .baseUnit("bytes")
            .tag(tag, id)
            .register(registry);
  }

  // ---- what the group says

  void assigned(Set<Integer> partitions) {
    for (int p : partitions) {
      assignedByGroup.add(p);
      if (!owned.containsKey(p) && !stopping) {
        takeOver(p, 0);
      }
    }
  }

  /** Gives partitions up, each after a final checkpoint; completes when those are done. */
  Future<Void> revoked(Set<Integer> partitions) {
    List<Future<Void>> finals = new ArrayList<>();
    for (int p : partitions) {
      assignedByGroup.remove(p);
      failures.remove(p);
      Owned o = owned.remove(p);
      if (o != null) {
        finals.add(release(o, true));
      }
    }
    return Future.join(finals).mapEmpty();
  }

  /** Drops partitions the group took away without a revocation: no checkpoint (a zombie's). */
  void lost(Set<Integer> partitions) {
    for (int p : partitions) {
      assignedByGroup.remove(p);
      failures.remove(p);
      Owned o = owned.remove(p);
      if (o != null) {
        release(o, false);
      }
    }
  }

  /** Final checkpoints of everything owned, then every task closed. */
  Future<Void> stop() {
    stopping = true;
    List<Future<Void>> finals = new ArrayList<>();
    for (Owned o : List.copyOf(owned.values())) {
      owned.remove(o.partition);
      finals.add(release(o, true));
    }
    return Future.join(finals).mapEmpty();
  }

  // ---- queries

  /** The task of a partition that is owned and consuming, or null. */
  Owned active(int partition) {
    Owned o = owned.get(partition);
    return o != null && o.state == State.ACTIVE ? o : null;
  }

  Collection<Owned> all() {
    return owned.values();
  }

  Set<Integer> assignedByGroup() {
    return assignedByGroup;
  }

  /** Partitions failing repeatedly (retried with a delay). */
  int failing() {
    int n = 0;
    for (Failures f : failures.values()) {
      if (f.count() >= 2) {
        n++;
      }
    }
    return n;
  }

  // ---- take-over and restore

  private void takeOver(int partition, long delayMs) {
    Owned o = new Owned(partition);
    owned.put(partition, o);
    loop.hold(partition);
    if (delayMs > 0) {
      vertx.setTimer(
          delayMs,
          id -> {
            if (owned.get(partition) == o && !stopping) {
              restore(o);
            }
          });
    } else {
      restore(o);
    }
  }

  /**
   * A restored partition: its epoch (with when the store's durable copy has it), checkpoint and
   * task, and ({@code at_least_once}) the pointer found committed in the group, which the take-over
   * claims with its epoch.
   */
  private record Restored<T>(
      TakenEpoch taken, Optional<Checkpoint> checkpoint, T task, CommitPointer found) {

    long epoch() {
      return taken.value();
    }
  }

  private void restore(Owned o) {
    Future<Restored<T>> restored = exactlyOnce ? restoreTransactional(o) : restoreFromStore(o);
    restored.onSuccess(
        r ->
            o.enter(
                "seeking to "
                    + r.checkpoint().map(c -> "its checkpoint's offset").orElse("the start")));
    restored
        .compose(
            r -> {
              o.epoch = r.epoch();
              o.task = r.task();
              o.lastCreatedMs = r.checkpoint().map(Checkpoint::createdMs).orElse(0L);
              if (!current(o)) {
                return Future.<Void>succeededFuture();
              }
              OptionalLong offset =
                  r.checkpoint().isPresent()
                      ? OptionalLong.of(r.checkpoint().get().nextOffset())
                      : OptionalLong.empty();
              return loop.seek(o.partition, offset, settings.startFromLatest())
                  .compose(position -> claim(o, r, position))
                  .compose(position -> epochRecorded(o, r).map(position))
                  .map(position -> activate(o, position, r.checkpoint().isPresent()));
            })
        .onComplete(
            ar -> {
              if (o.state == State.ACTIVE && current(o)) {
                return;
              }
              closeTask(o);
              if (ar.failed() && current(o) && isRefusedClaim(ar.cause())) {
                LOG.warn(
                    "{}={} partition={} epoch={}: the group refused its claim (this member is not"
                        + " in its current generation: a rebalance moved on); nothing processed",
                    settings.stage(),
                    settings.instanceId(),
                    o.partition,
                    o.epoch);
                owned.remove(o.partition);
                retryIfAssigned(o, "the group refused its claim");
              } else if (ar.failed() && current(o)) {
                LOG.error(
                    "{}={} could not take partition {} of {} over",
                    settings.stage(),
                    settings.instanceId(),
                    o.partition,
                    settings.inputTopic(),
                    ar.cause());
                owned.remove(o.partition);
                retryIfAssigned(o, "restore failed");
              }
            });
  }

  /**
   * {@code at_least_once}: the new epoch is above the store's and above the fence of the pointer
   * committed in the group ({@link CommitPointer#fence}: the last checkpoint's owner, or a later
   * claim). The checkpoint is the store's, unless the store does not reach the pointer's offset —
   * it lost the checkpoint (both members holding it died before Hazelcast made new backups) or is
   * an island cut off from its cluster: then the record the pointer names in the checkpoint topic.
   * Without a record position (a store with no copy in Kafka) a store that outlives processes is
   * refused and the take-over retried; one in this process's memory restores what it has.
   */
  private Future<Restored<T>> restoreFromStore(Owned o) {
    String id = settings.checkpointId(o.partition);
    o.enter("reading the offset committed in the consumer group");
    return loop.committed(o.partition)
        .compose(
            committed ->
                storeStep(
                    o,
                    () -> {
                      o.enter("taking an epoch from the store");
                      CommitPointer pointer = CommitPointer.of(committed);
                      TakenEpoch epoch = aboveFence(id, pointer);
                      o.enter("loading the checkpoint from the store");
                      Optional<Checkpoint> cp = store.load(id);
                      boolean behind =
                          pointer != null
                              && pointer.namesCheckpoint()
                              && (cp.isEmpty() || cp.get().nextOffset() < pointer.nextOffset());
                      if (behind && pointer.hasLog()) {
                        o.enter("reading the checkpoint back from the checkpoint topic");
                        cp = readBack(o.partition, id, pointer);
                      } else if (behind && !store.outlivesProcesses()) {
                        LOG.warn(
                            "{}={} partition={}: offset {} was committed after a checkpoint this"
                                + " process's store does not have; restoring {}: outputs since"
                                + " then are written again",
                            settings.stage(),
                            settings.instanceId(),
                            o.partition,
                            pointer.nextOffset(),
                            cp.map(c -> "its checkpoint at " + c.nextOffset())
                                .orElse("from scratch"));
                      } else if (behind) {
                        throw new IllegalStateException(
                            "the checkpoint store is behind the group: offset "
                                + pointer.nextOffset()
                                + " was committed after a checkpoint of epoch "
                                + pointer.epoch()
                                + ", the store has "
                                + cp.map(c -> "offset " + c.nextOffset()).orElse("none")
                                + " and keeps no copy in Kafka to read it back from");
                      }
                      return new Restored<>(epoch, cp, restoreTask(o, epoch.value(), cp), pointer);
                    }));
  }

  /** The partition's task, from its checkpoint when it has one (a take-over's step; blocking). */
  private T restoreTask(Owned o, long epoch, Optional<Checkpoint> cp) throws Exception {
    o.enter(cp.isPresent() ? "restoring its task from the checkpoint" : "creating its task");
    return factory.restore(o.partition, epoch, cp);
  }

  /**
   * Runs a take-over's step that takes an epoch on a worker, unless the partition was released
   * before the step started; {@link #release} waits for a step that did start.
   */
  private <R> Future<R> storeStep(Owned o, Callable<R> step) {
    Future<R> f =
        vertx.executeBlocking(
            () -> {
              if (o.released) {
                throw new CancellationException(
                    "partition "
                        + o.partition
                        + " was given up before its take-over took an epoch");
              }
              return step.call();
            },
            false);
    o.storeStep = f;
    return f;
  }

  /**
   * The next epoch of {@code id} from the store, above the fence of the pointer committed in the
   * group (epochs the store lost, or never knew: an island's). Blocking; does not wait for the
   * store's durable copy of the epoch ({@link #epochRecorded} does, before the owner acts).
   */
  private TakenEpoch aboveFence(String id, CommitPointer pointer) {
    TakenEpoch epoch = store.takeEpoch(id);
    while (pointer != null && epoch.value() <= pointer.fence()) {
      epoch = store.takeEpoch(id).after(epoch);
    }
    return epoch;
  }

  /**
   * Completes when the store's durable copy of the take-over's epoch is written (its record in the
   * checkpoint topic, sent when the epoch was taken): the owner restores its task, seeks and claims
   * meanwhile, and processes nothing before. A failed record fails the take-over, which is retried
   * with a new epoch.
   */
  private Future<Void> epochRecorded(Owned o, Restored<T> r) {
    CompletableFuture<Void> recorded = r.taken().recorded();
    if (recorded.isDone() && !recorded.isCompletedExceptionally()) {
      return Future.succeededFuture();
    }
    o.enter("waiting for its epoch's record in the checkpoint topic");
    return Future.fromCompletionStage(recorded, context)
        .recover(e -> Future.failedFuture(Unwrapped.cause(e)));
  }

  /**
   * {@code at_least_once}: before the partition's first record is processed, its new owner commits
   * its claim with the group's generation ({@link CommitPointer#claimedBy}). The group refuses a
   * member that is no longer in its current generation, so an owner that the group has moved past
   * fails here, before it writes anything, and a later owner finds this epoch in the group and
   * takes one above it.
   */
  private Future<ConsumerLoop.Position> claim(
      Owned o, Restored<T> r, ConsumerLoop.Position position) {
    if (exactlyOnce) {
      return Future.succeededFuture(position); // the transactional producer fenced its predecessors
    }
    CommitPointer claim = CommitPointer.claimedBy(r.epoch(), r.found(), position.offset());
    o.enter("committing its claim in the consumer group");
    return loop.claim(o.partition, new OffsetAndMetadata(claim.nextOffset(), claim.encode()))
        .map(position);
  }

  /**
   * {@code exactly_once}: fence earlier producers first, then restore the checkpoint committed with
   * the input offset, and begin the partition's first transaction.
   */
  private Future<Restored<T>> restoreTransactional(Owned o) {
    String id = settings.checkpointId(o.partition);
    o.enter(
        "initialising its transactional producer (which aborts the previous owner's transaction)");
    TransactionalSender.Channel channel =
        transactions.open(settings.transactionalId(o.partition), o);
    o.channel = channel;
    return channel
        .initialised()
        .compose(
            v -> {
              o.enter("reading the offset committed in the consumer group");
              return loop.committed(o.partition);
            })
        .compose(
            committed -> {
              CommitPointer pointer = CommitPointer.of(committed);
              o.enter("taking an epoch and loading the checkpoint from the store");
              return storeAnswer(o, id, pointer)
                  .compose(
                      answer ->
                          channel.run(
                              producer -> {
                                TakenEpoch epoch;
                                Optional<Checkpoint> cp;
                                if (answer.isPresent()) {
                                  epoch = answer.get().epoch();
                                  cp =
                                      committedCheckpoint(
                                          o.partition, id, pointer, answer.get().stored());
                                } else {
                                  o.enter("reading the checkpoint from the checkpoint topic");
                                  epoch = TakenEpoch.recorded(pointer.fence() + 1);
                                  cp = readBack(o.partition, id, pointer);
                                  o.storeBypassed = true;
                                }
                                producer.beginTransaction();
                                return new Restored<>(
                                    epoch, cp, restoreTask(o, epoch.value(), cp), pointer);
                              }));
            });
  }

  /** What the store answered a take-over: the new epoch and its copy of the checkpoint. */
  private record StoreAnswer(TakenEpoch epoch, Optional<Checkpoint> stored) {}

  /**
   * {@code exactly_once}: the store's new epoch and checkpoint copy, or empty when the store has
   * not answered within {@value #STORE_ANSWER_TIMEOUT_MS} ms and the group's pointer names a
   * checkpoint record to read instead. The committed pointer and the checkpoint topic are the
   * truth, the store a fast copy: a Hazelcast member that hangs (a split it has not noticed, a
   * member it still waits on) must not hold a take-over for its 60 s call timeout. The epoch then
   * comes from the pointer (above every epoch that committed anything; the broker has fenced every
   * earlier producer), and the store keeps no copy of this owner's checkpoints. Without such a
   * pointer the store is waited for.
   */
  private Future<Optional<StoreAnswer>> storeAnswer(Owned o, String id, CommitPointer pointer) {
    Future<Optional<StoreAnswer>> answer =
        storeStep(o, () -> Optional.of(new StoreAnswer(aboveFence(id, pointer), store.load(id))));
    if (pointer == null || !pointer.namesCheckpoint() || !pointer.hasLog()) {
      return answer;
    }
    return answer
        .timeout(STORE_ANSWER_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .recover(
            e -> {
              if (!(e instanceof TimeoutException)) {
                return Future.failedFuture(e);
              }
              LOG.warn(
                  "{}={}: the checkpoint store has not answered within {} ms; taking {} over from"
                      + " the checkpoint topic ({}), without a copy in the store",
                  settings.stage(),
                  settings.instanceId(),
                  STORE_ANSWER_TIMEOUT_MS,
                  id,
                  pointer.encode());
              return Future.succeededFuture(Optional.empty());
            });
  }

  /**
   * The checkpoint committed with the partition's input offset: the store's copy ({@code stored})
   * when it is the one the pointer names, else the record the pointer names in the checkpoint topic
   * (the store fell behind: e.g. its owner died between commit and copy). Without a pointer
   * (nothing committed yet in {@code exactly_once}, e.g. the job ran {@code at_least_once} before)
   * the store's checkpoint. Blocking.
   *
   * @throws IllegalStateException when the committed checkpoint cannot be found
   */
  private Optional<Checkpoint> committedCheckpoint(
      int partition, String id, CommitPointer pointer, Optional<Checkpoint> stored) {
    if (pointer == null
        || !pointer.namesCheckpoint()
        || (stored.isPresent() && pointer.names(stored.get()))) {
      return stored;
    }
    if (pointer.hasLog()) {
      return readBack(partition, id, pointer);
    }
    LOG.warn(
        "{}={} partition={}: the committed checkpoint (epoch {}, offset {}) is not in the"
            + " checkpoint store, which keeps no copy in Kafka; restoring {} instead: outputs since"
            + " then are written again",
        settings.stage(),
        settings.instanceId(),
        partition,
        pointer.epoch(),
        pointer.nextOffset(),
        stored.map(c -> "its checkpoint at offset " + c.nextOffset()).orElse("from scratch"));
    return stored;
  }

  /**
   * The checkpoint {@code pointer} names, read back from the store's topic (the store is behind).
   * Blocking.
   *
   * @throws IllegalStateException when the record there is not that checkpoint
   */
  private Optional<Checkpoint> readBack(int partition, String id, CommitPointer pointer) {
    Optional<Checkpoint> logged = store.read(id, pointer.logPartition(), pointer.logOffset());
    if (logged.isEmpty() || !pointer.names(logged.get())) {
      throw new IllegalStateException(
          "the checkpoint committed for partition "
              + partition
              + " ("
              + pointer.encode()
              + ") is not in the checkpoint topic"
              + logged.map(c -> ", found " + c).orElse(""));
    }
    LOG.info(
        "{}={} partition={}: the store was behind the committed checkpoint; read it back from"
            + " the checkpoint topic at {}@{}",
        settings.stage(),
        settings.instanceId(),
        partition,
        pointer.logPartition(),
        pointer.logOffset());
    return logged;
  }

  private Void activate(Owned o, ConsumerLoop.Position position, boolean fromCheckpoint) {
    if (!current(o)) {
      return null;
    }
    o.generation = position.generation();
    o.nextOffset = position.offset();
    o.output = exactlyOnce ? o.channel.output() : sender.outputFor(o);
    o.lastActivityMs = clock.millis();
    o.state = State.ACTIVE;
    restores.increment();
    o.enter("owned");
    LOG.info(
        "{}={} partition={} epoch={} owned, resuming at offset {} ({}), taken over in {} ms",
        settings.stage(),
        settings.instanceId(),
        o.partition,
        o.epoch,
        o.nextOffset,
        fromCheckpoint ? "from its checkpoint" : "no checkpoint",
        clock.millis() - o.takeOverStartMs);
    LOG.debug(
        "{}={} partition={} take-over steps: {}",
        settings.stage(),
        settings.instanceId(),
        o.partition,
        o.stepTimes);
    o.task.activated(o.output);
    dispatch(o);
    loop.release(o.partition);
    onActivated.run();
    return null;
  }

  /** Sends what the partition's task emitted (held while its transaction is being committed). */
  private void dispatch(Owned o) {
    if (exactlyOnce) {
      o.channel.dispatch();
    } else {
      sender.dispatch();
    }
  }

  // ---- records

  /**
   * Folds one poll batch's records of a consuming partition into its task, then ends the batch;
   * while the task's snapshot is being encoded they wait for it instead. A task that throws is
   * rewound to its last checkpoint.
   */
  void process(Owned o, List<ConsumerRecord<byte[], byte[]>> records, long nowMs) {
    o.lastActivityMs = nowMs;
    if (o.encoding) {
      o.waiting.add(records);
      return;
    }
    try {
      for (ConsumerRecord<byte[], byte[]> r : records) {
        if (r.offset() < o.nextOffset) {
          continue;
        }
        o.nextOffset = r.offset() + 1;
        o.task.process(r, o.output);
      }
      o.task.endOfBatch(o.output);
    } catch (RuntimeException e) {
      LOG.error(
          "{}={} the task of partition {} failed at offset {}",
          settings.stage(),
          settings.instanceId(),
          o.partition,
          o.nextOffset - 1,
          e);
      rewind(o, "the task failed: " + e);
    }
  }

  private boolean current(Owned o) {
    return owned.get(o.partition) == o && !stopping;
  }

  /**
   * Logs, every {@value #SLOW_TAKE_OVER_MS} ms, each take-over still under way after that long and
   * what it waits on (the offset, the store, the broker): a partition that is assigned but not
   * consumed must never be silent.
   */
  void reportSlowTakeOvers(long nowMs) {
    for (Owned o : owned.values()) {
      if (o.state == State.RESTORING
          && nowMs - o.takeOverStartMs >= SLOW_TAKE_OVER_MS
          && nowMs - o.slowReportedMs >= SLOW_TAKE_OVER_MS) {
        o.slowReportedMs = nowMs;
        String done = o.stepTimes;
        LOG.warn(
            "{}={} partition={}: taking it over has taken {} ms so far; waiting on: {}{}",
            settings.stage(),
            settings.instanceId(),
            o.partition,
            nowMs - o.takeOverStartMs,
            o.step,
            done.isEmpty() ? "" : " (after: " + done + ")");
      }
    }
  }

  // ---- failures

  /**
   * Drops a task and takes its partition over again from the last checkpoint (a lost send, or the
   * task failed).
   */
  void rewind(Owned o, String why) {
    if (!current(o)) {
      return;
    }
    rewinds.increment();
    LOG.error(
        "{}={} partition={} epoch={}: {}; rewinding to the last checkpoint",
        settings.stage(),
        settings.instanceId(),
        o.partition,
        o.epoch,
        why);
    owned.remove(o.partition);
    closeTask(o);
    if (exactlyOnce) {
      retryIfAssigned(o, why); // its open transaction is aborted: nothing it sent is visible
      return;
    }
    // the next owner looks up what this task already wrote (so its replay does not write it
    // again): take over only once everything this task sent has landed or failed
    sender
        .afterAcknowledged(() -> null)
        .onComplete(
            ar -> {
              if (!owned.containsKey(o.partition)) {
                retryIfAssigned(o, why);
              }
            });
  }

  private void fenced(Owned o, String why) {
    if (!current(o)) {
      return;
    }
    fenced.increment();
    LOG.warn(
        "{}={} partition={} epoch={} is owned by a newer owner ({}): fenced, state dropped",
        settings.stage(),
        settings.instanceId(),
        o.partition,
        o.epoch,
        why);
    owned.remove(o.partition);
    closeTask(o);
    if (!assignedByGroup.contains(o.partition)) {
      failures.remove(o.partition);
      return;
    }
    // As far as this member knows the group still gives it the partition. Either the newer owner
    // lost it again (a restore that raced a rebalance, a healed split) or this member is the
    // zombie: paused past its session, it has not yet heard that the group moved the partition.
    // Taking it over now would fence the real owner in turn, so ask the group first; a zombie
    // learns there that its partitions are lost, a member still in the group keeps them.
    LOG.warn(
        "{}={} partition={} still looks assigned here: confirming with the group before taking it"
            + " over again",
        settings.stage(),
        settings.instanceId(),
        o.partition);
    retakeOnceTheGroupAnswers(o, "fenced", loop.confirmMembership());
  }

  /**
   * {@code exactly_once}: the group refused the transaction's offsets for a stale generation. A
   * rebalance is under way (other members' commits meet this whenever one starts) — or this member
   * was dropped and has not heard yet. The transaction is aborted; the partition is taken over
   * again from its last commit once this member's consumer has the assignment of the newer
   * generation, never before: a retake creates a producer, which would fence the real owner's if
   * the partition moved. No rebalance is enforced (one is under way already).
   */
  private void groupMoved(Owned o) {
    if (!current(o)) {
      return;
    }
    rewinds.increment();
    LOG.warn(
        "{}={} partition={} epoch={}: the group refused its offsets (generation {} is stale: a"
            + " rebalance moved on); rewinding once the group's new assignment is known",
        settings.stage(),
        settings.instanceId(),
        o.partition,
        o.epoch,
        o.refusedGeneration);
    owned.remove(o.partition);
    closeTask(o);
    retakeOnceTheGroupAnswers(
        o, "the group refused its offsets", loop.awaitAssignmentAfter(o.refusedGeneration));
  }

  /**
   * Holds a dropped partition and takes it over again only once {@code answer} — the group's
   * assignment — is in, and only if it still assigns the partition here. A group that never answers
   * (a consumer protocol without enforced rebalances) must not leave the partition unowned: after
   * the revoke timeout it is taken over as far as this member knows.
   */
  private void retakeOnceTheGroupAnswers(Owned o, String why, Future<Void> answer) {
    int partition = o.partition;
    loop.hold(partition);
    answer
        .timeout(settings.revokeTimeout().toMillis(), TimeUnit.MILLISECONDS)
        .onComplete(
            ar -> {
              if (owned.containsKey(partition)) {
                return; // the group's answer was a fresh assignment, already taken over
              }
              if (assignedByGroup.contains(partition) && !stopping) {
                LOG.warn(
                    "{}={} partition={} is still assigned here ({}): taking it over again",
                    settings.stage(),
                    settings.instanceId(),
                    partition,
                    ar.succeeded()
                        ? "the group confirmed it"
                        : "the group did not answer: " + ar.cause());
              }
              retryIfAssigned(o, why);
            });
  }

  private void retryIfAssigned(Owned o, String why) {
    if (!assignedByGroup.contains(o.partition) || stopping) {
      failures.remove(o.partition);
      return;
    }
    Failures previous = failures.get(o.partition);
    int count = previous == null ? 1 : previous.count() + 1;
    long atOffset = Math.max(o.nextOffset, previous == null ? -1 : previous.atOffset());
    failures.put(o.partition, new Failures(count, atOffset));
    long delay = retryDelayMs(count);
    if (delay > 0) {
      LOG.error(
          "{}={} partition={} failed {} times in a row ({}); retrying in {} ms",
          settings.stage(),
          settings.instanceId(),
          o.partition,
          count,
          why,
          delay);
    }
    takeOver(o.partition, delay);
  }

  /** No delay for a first failure, then 1 s doubling up to 60 s. */
  static long retryDelayMs(int consecutiveFailures) {
    if (consecutiveFailures <= 1) {
      return 0;
    }
    int doublings = Math.min(consecutiveFailures - 2, 16);
    return Math.min(MAX_RETRY_DELAY_MS, FIRST_RETRY_DELAY_MS << doublings);
  }

  // ---- checkpoints

  /** Checkpoints every consuming partition that has no checkpoint in flight. */
  void checkpointAll() {
    for (Owned o : List.copyOf(owned.values())) {
      if (o.state == State.ACTIVE && o.checkpointInFlight == null) {
        Future<Outcome> f = checkpoint(o);
        o.checkpointInFlight = f;
        f.onComplete(
            ar -> {
              o.checkpointInFlight = null;
              if (ar.succeeded() && current(o)) {
                switch (ar.result()) {
                  case FENCED -> fenced(o, "its checkpoint was refused");
                  case LOST_SEND ->
                      rewind(o, "a produced record was lost since the last checkpoint");
                  case ABORTED -> rewind(o, "its transaction could not be committed");
                  case GROUP_MOVED -> groupMoved(o);
                  case FAILED ->
                      // the task went on from a state no checkpoint holds; going back to the last
                      // stored one keeps every later replay identical to what is processed now
                      rewind(o, "its checkpoint could not be stored");
                  case SAVED -> {}
                }
              }
            });
      }
    }
  }

  /**
   * One checkpoint of a partition: the task's state is captured on the event loop, then encoded on
   * a worker while the partition's records wait (it is held in the consumer; what was already
   * fetched is processed once the encoding is done), so that a large state never blocks the event
   * loop and the other partitions on it; then stored ({@link #saveAfterAcknowledged}) or committed
   * ({@link #commit}).
   */
  private Future<Outcome> checkpoint(Owned o) {
    long startNs = System.nanoTime();
    T task = o.task;
    CapturedState captured = task.snapshot();
    // strictly increasing per owner: (epoch, offset, createdMs) names one checkpoint even when
    // ticks change the state without new input
    long createdMs = Math.max(clock.millis(), o.lastCreatedMs + 1);
    o.lastCreatedMs = createdMs;
    long epoch = o.epoch;
    long nextOffset = o.nextOffset;
    if (exactlyOnce) {
      // what the task emitted so far is this transaction's; what it emits from now on, the next's
      o.channel.dispatch();
      o.channel.hold();
    }
    o.encoding = true;
    loop.hold(o.partition);
    String id = settings.checkpointId(o.partition);
    Future<Outcome> stored =
        vertx
            .executeBlocking(captured::encode, false)
            .andThen(ar -> resumeAfterEncoding(o))
            .compose(
                state -> {
                  Checkpoint cp = new Checkpoint(epoch, nextOffset, createdMs, state);
                  long snapshotNs = System.nanoTime() - startNs;
                  return exactlyOnce
                      ? commit(o, id, cp, snapshotNs)
                      : saveAfterAcknowledged(o, id, cp, snapshotNs);
                });
    return stored
        .otherwise(
            e -> {
              LOG.warn(
                  "{}={} checkpoint of partition {} failed",
                  settings.stage(),
                  settings.instanceId(),
                  o.partition,
                  e);
              return exactlyOnce ? Outcome.ABORTED : Outcome.FAILED;
            })
        .onSuccess(
            outcome -> {
              if (outcome == Outcome.SAVED) {
                tellCheckpointed(o, task);
                Failures f = failures.get(o.partition);
                if (f != null && nextOffset >= f.atOffset()) {
                  failures.remove(o.partition);
                }
              }
            });
  }

  /**
   * The partition's snapshot is encoded (or failed to): the records that waited are processed, in
   * order, and its consumer lets the next ones through — unless the task was dropped meanwhile
   * (revoked, rewound, fenced, stopped): then they are read again by the next owner, from its
   * checkpoint's offset.
   */
  private void resumeAfterEncoding(Owned o) {
    o.encoding = false;
    List<List<ConsumerRecord<byte[], byte[]>>> waited = List.copyOf(o.waiting);
    o.waiting.clear();
    if (!current(o) || o.state != State.ACTIVE) {
      return;
    }
    long nowMs = clock.millis();
    for (List<ConsumerRecord<byte[], byte[]>> records : waited) {
      process(o, records, nowMs);
      if (!current(o)) {
        return; // the task threw: rewound
      }
    }
    dispatch(o);
    loop.release(o.partition);
  }

  /** Tells the task its snapshot is stored, unless the task was dropped meanwhile. */
  private void tellCheckpointed(Owned o, T task) {
    if (o.task != task || o.state != State.ACTIVE) {
      return;
    }
    try {
      task.checkpointed(o.output);
      dispatch(o);
    } catch (RuntimeException e) {
      LOG.error(
          "{}={} the task of partition {} failed after its checkpoint",
          settings.stage(),
          settings.instanceId(),
          o.partition,
          e);
      if (current(o)) {
        rewind(o, "the task failed after its checkpoint: " + e);
      }
    }
  }

  /**
   * {@code at_least_once}: store once everything emitted so far is acknowledged, then commit the
   * input offset with the pointer to the stored checkpoint and its copy in Kafka.
   */
  private Future<Outcome> saveAfterAcknowledged(
      Owned o, String id, Checkpoint cp, long snapshotNs) {
    return sender.afterAcknowledged(
        () -> {
          if (o.sendFailure.get() != null) {
            return Outcome.LOST_SEND;
          }
          long storeStartNs = System.nanoTime();
          Saved saved = store.save(id, cp);
          checkpointDuration.record(
              snapshotNs + System.nanoTime() - storeStartNs, TimeUnit.NANOSECONDS);
          checkpointSize.record(cp.state().length);
          if (!saved.accepted()) {
            return Outcome.FENCED;
          }
          loop.commit(
              Map.of(
                  o.partition,
                  new OffsetAndMetadata(cp.nextOffset(), CommitPointer.to(cp, saved).encode())));
          return Outcome.SAVED;
        });
  }

  /**
   * {@code exactly_once}: one transaction. What the task emitted before the snapshot is in the
   * partition's transaction; what it emits from now on is held until the next one begins. On the
   * partition's producer chain: flush; abort if a record failed; else the checkpoint record, the
   * input offset with its pointer, commit; then a new transaction, and the store's copy in the
   * background ({@link #cacheInBackground}).
   */
  private Future<Outcome> commit(Owned o, String id, Checkpoint cp, long snapshotNs) {
    TransactionalSender.Channel channel = o.channel;
    TopicPartition input = new TopicPartition(settings.inputTopic(), o.partition);
    return channel
        .run(
            producer -> {
              long commitStartNs = System.nanoTime();
              try {
                producer.flush();
                Exception lost = o.sendFailure.get();
                if (lost != null) {
                  abortQuietly(producer);
                  return isFenced(lost) ? Outcome.FENCED : Outcome.LOST_SEND;
                }
                CommitPointer pointer = writeCheckpointRecord(producer, id, cp);
                ConsumerGroupMetadata group =
                    loop.groupMetadata()
                        .toCompletionStage()
                        .toCompletableFuture()
                        .get(settings.revokeTimeout().toMillis(), TimeUnit.MILLISECONDS);
                o.refusedGeneration = group.generationId();
                producer.sendOffsetsToTransaction(
                    Map.of(input, new OffsetAndMetadata(cp.nextOffset(), pointer.encode())), group);
                producer.commitTransaction();
              } catch (Exception e) {
                if (isFenced(e)) {
                  return Outcome.FENCED;
                }
                if (isStaleGeneration(e)) {
                  abortQuietly(producer);
                  return Outcome.GROUP_MOVED;
                }
                LOG.warn(
                    "{}={} partition={} epoch={}: committing its transaction failed; aborting: {}",
                    settings.stage(),
                    settings.instanceId(),
                    o.partition,
                    o.epoch,
                    e.toString());
                abortQuietly(producer);
                return Outcome.ABORTED;
              }
              checkpointDuration.record(
                  snapshotNs + System.nanoTime() - commitStartNs, TimeUnit.NANOSECONDS);
              checkpointSize.record(cp.state().length);
              try {
                producer.beginTransaction();
              } catch (RuntimeException e) {
                return isFenced(e) ? Outcome.FENCED : Outcome.ABORTED;
              }
              return Outcome.SAVED;
            })
        .onSuccess(
            outcome -> {
              if (outcome == Outcome.SAVED) {
                channel.release();
                cacheInBackground(o, id, cp);
              }
            });
  }

  /**
   * {@code exactly_once}: the store's copy of a committed checkpoint, written off the partition's
   * producer chain so that a slow or unreachable store (a Hazelcast member paused or cut off) never
   * holds the partition's outputs back: the copy only saves the next restore a read of the
   * checkpoint topic, which the committed pointer names anyway. At most one copy per partition is
   * in flight; a later checkpoint's copy replaces a skipped one. A store that refuses the copy
   * holds a newer epoch: the partition is fenced (its producer is fenced at the broker too). An
   * owner whose take-over bypassed a store that did not answer keeps no copies at all.
   */
  private void cacheInBackground(Owned o, String id, Checkpoint cp) {
    context.runOnContext(
        v -> {
          if (o.cacheInFlight || o.storeBypassed) {
            return;
          }
          o.cacheInFlight = true;
          vertx
              .executeBlocking(() -> cacheQuietly(o, id, cp), false)
              .onComplete(
                  ar -> {
                    o.cacheInFlight = false;
                    if (ar.succeeded() && !ar.result() && current(o)) {
                      fenced(o, "the checkpoint store holds a newer epoch");
                    }
                  });
        });
  }

  /**
   * Has the store write its copy of the checkpoint into the transaction (when it keeps one in
   * Kafka: possibly several records) and returns the pointer to commit with the input offset,
   * naming the record the copy is read back from.
   */
  private CommitPointer writeCheckpointRecord(
      Producer<byte[], byte[]> producer, String id, Checkpoint cp) {
    Optional<RecordMetadata> written = store.writeTransactional(id, cp, producer);
    return CommitPointer.to(
        cp, written.map(w -> Saved.logged(w.partition(), w.offset())).orElse(Saved.UNLOGGED));
  }

  /**
   * The store's copy of a committed checkpoint; false when the store refuses it (a newer epoch). A
   * failing store only costs the next restore a read of the checkpoint topic.
   */
  private boolean cacheQuietly(Owned o, String id, Checkpoint cp) {
    try {
      return store.cache(id, cp);
    } catch (RuntimeException e) {
      LOG.warn(
          "{}={} partition={}: checkpoint committed, but the store's copy failed: {}",
          settings.stage(),
          settings.instanceId(),
          o.partition,
          e.toString());
      return true;
    }
  }

  private static void abortQuietly(Producer<byte[], byte[]> producer) {
    try {
      producer.abortTransaction();
    } catch (RuntimeException e) {
      // the producer is closed and replaced by the rewind; its next owner's init aborts it
    }
  }

  /** Whether the broker fenced a producer: a newer producer with its transactional id exists. */
  static boolean isFenced(Throwable e) {
    return causedBy(e, ProducerFencedException.class, InvalidProducerEpochException.class);
  }

  /**
   * Whether the group refused a transaction's offsets because this member's generation is stale: a
   * rebalance is under way, or the group dropped this member (paused past its session).
   */
  static boolean isStaleGeneration(Throwable e) {
    return causedBy(e, CommitFailedException.class);
  }

  /**
   * Whether the group refused a take-over's claim: this member's generation is stale, or a
   * rebalance is completing (its outcome decides whether the partition is still this member's).
   */
  static boolean isRefusedClaim(Throwable e) {
    return causedBy(e, CommitFailedException.class, RebalanceInProgressException.class);
  }

  @SafeVarargs
  private static boolean causedBy(Throwable e, Class<? extends Throwable>... types) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      for (Class<? extends Throwable> type : types) {
        if (type.isInstance(t)) {
          return true;
        }
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  /** Ends ownership of a partition already removed from the map. */
  private Future<Void> release(Owned o, boolean checkpointFirst) {
    o.released = true;
    if (o.state != State.ACTIVE) {
      if (o.task != null) {
        closeTask(o);
      }
      Future<?> step = o.storeStep;
      if (step == null || step.isComplete()) {
        return Future.succeededFuture();
      }
      // its epoch is being taken: the next owner must take its own after it (the restore closes
      // the task it made, as it is no longer current); a store that hangs is waited for no longer
      // than a revocation waits for final checkpoints
      return step.<Void>mapEmpty()
          .timeout(settings.revokeTimeout().toMillis(), TimeUnit.MILLISECONDS)
          .otherwiseEmpty();
    }
    Future<Outcome> previous =
        o.checkpointInFlight == null ? Future.succeededFuture() : o.checkpointInFlight;
    Future<Outcome> last =
        checkpointFirst
            ? previous.otherwiseEmpty().compose(v -> checkpoint(o))
            : Future.succeededFuture();
    return last.onSuccess(
            outcome -> {
              if (checkpointFirst && outcome != Outcome.SAVED) {
                LOG.warn(
                    "{}={} final checkpoint of partition {} epoch {}: {}",
                    settings.stage(),
                    settings.instanceId(),
                    o.partition,
                    o.epoch,
                    outcome);
              }
            })
        .<Void>mapEmpty()
        .eventually(
            () -> {
              closeTask(o);
              return Future.succeededFuture();
            });
  }

  private void closeTask(Owned o) {
    o.state = State.RESTORING;
    if (o.task != null && o.task != o.closedTask) {
      o.closedTask = o.task; // a released take-over's restore may come here again
      try {
        o.task.close();
      } catch (RuntimeException e) {
        LOG.warn("closing the task of partition {} failed", o.partition, e);
      }
    }
    if (o.channel != null) {
      // after its last commit (the close waits on the channel's chain); what is still open is
      // aborted by the broker, at once when the next owner initialises
      o.channel.close(Duration.ZERO);
    }
  }
}

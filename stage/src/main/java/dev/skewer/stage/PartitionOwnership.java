package dev.skewer.stage;

import dev.skewer.core.checkpoint.Checkpoint;
import dev.skewer.core.checkpoint.CheckpointStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which partitions this runtime owns, and every rule about owning one — the one place each failover
 * rule lives:
 *
 * <ul>
 *   <li><b>Take-over.</b> A partition the group assigns is held (paused) and restored on a worker:
 *       a new fencing epoch from the checkpoint store, the last checkpoint loaded and handed to the
 *       {@link TaskFactory}; then the consumer seeks to the checkpoint's offset (without one, to
 *       the start or end) and the partition is released. If it is revoked meanwhile, the restored
 *       task is discarded.
 *   <li><b>Checkpoints.</b> Periodically and before a partition is given up: the task's snapshot is
 *       taken on the event loop, then — on the sender's ordered worker, once every record emitted
 *       so far is acknowledged — stored, unless one of the task's records failed. A checkpoint
 *       therefore never covers output that could still be lost. After a checkpoint is stored, the
 *       consumer offset is committed (for lag monitoring only).
 *   <li><b>Rewind.</b> When a record of a task cannot be sent, its checkpoint cannot be stored, or
 *       the task throws, the task is dropped and the partition taken over again from its last
 *       stored checkpoint, under a new epoch; what it emitted since is emitted again and replaces
 *       the old downstream.
 *   <li><b>Fencing.</b> When the store refuses a checkpoint because a newer epoch owns the
 *       partition, this owner was a zombie: its task is dropped; if the group still assigns the
 *       partition here (the newer epoch was an owner that lost it), it is taken over again.
 *   <li><b>Repeated failures</b> (restore, rewind, fencing) of one partition are retried with a
 *       delay doubling from 1 s to 60 s, and the partition counts as failing (not ready) until a
 *       checkpoint beyond the offset where it last failed is stored: a persistent failure ends in a
 *       visible, bounded state, never in a fast loop and never in lost output.
 * </ul>
 *
 * <p>Everything runs on the runtime's event loop, except restores (worker) and checkpoint stores
 * (the sender's ordered worker).
 */
final class PartitionOwnership<T extends PartitionTask> {

  private static final Logger LOG = LoggerFactory.getLogger(PartitionOwnership.class);
  static final long FIRST_RETRY_DELAY_MS = 1_000;
  static final long MAX_RETRY_DELAY_MS = 60_000;

  enum State {
    RESTORING,
    ACTIVE
  }

  /** What became of one checkpoint. */
  enum Outcome {
    SAVED,
    FENCED,
    LOST_SEND,
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
    Future<Outcome> checkpointInFlight;
    private final AtomicReference<Exception> sendFailure = new AtomicReference<>();

    Owned(int partition) {
      this.partition = partition;
    }

    @Override
    public void failed(Exception e) {
      if (sendFailure.compareAndSet(null, e)) {
        context.runOnContext(v -> rewind(this, "a produced record was lost: " + e));
      }
    }
  }

  private final Vertx vertx;
  private final Context context;
  private final StageSettings settings;
  private final TaskFactory<T> factory;
  private final CheckpointStore store;
  private final OrderedSender sender;
  private final ConsumerLoop loop;
  private final Clock clock;
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
      OrderedSender sender,
      ConsumerLoop loop,
      MeterRegistry registry,
      Clock clock) {
    this.vertx = vertx;
    this.context = context;
    this.settings = settings;
    this.factory = factory;
    this.store = store;
    this.sender = sender;
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

  private record Restored<T>(long epoch, Optional<Checkpoint> checkpoint, T task) {}

  private void restore(Owned o) {
    String id = settings.checkpointId(o.partition);
    vertx
        .<Restored<T>>executeBlocking(
            () -> {
              long epoch = store.nextEpoch(id);
              Optional<Checkpoint> cp = store.load(id);
              return new Restored<>(epoch, cp, factory.restore(o.partition, epoch, cp));
            },
            false)
        .compose(
            r -> {
              o.epoch = r.epoch();
              o.task = r.task();
              if (!current(o)) {
                return Future.<Void>succeededFuture();
              }
              OptionalLong offset =
                  r.checkpoint().isPresent()
                      ? OptionalLong.of(r.checkpoint().get().nextOffset())
                      : OptionalLong.empty();
              return loop.seek(o.partition, offset, settings.startFromLatest())
                  .map(position -> activate(o, position, r.checkpoint().isPresent()));
            })
        .onComplete(
            ar -> {
              if (o.state == State.ACTIVE && current(o)) {
                return;
              }
              if (o.task != null) {
                o.task.close();
              }
              if (ar.failed() && current(o)) {
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

  private Void activate(Owned o, ConsumerLoop.Position position, boolean fromCheckpoint) {
    if (!current(o)) {
      return null;
    }
    o.generation = position.generation();
    o.nextOffset = position.offset();
    o.output = sender.outputFor(o);
    o.lastActivityMs = clock.millis();
    o.state = State.ACTIVE;
    restores.increment();
    LOG.info(
        "{}={} partition={} epoch={} owned, resuming at offset {} ({})",
        settings.stage(),
        settings.instanceId(),
        o.partition,
        o.epoch,
        o.nextOffset,
        fromCheckpoint ? "from its checkpoint" : "no checkpoint");
    o.task.activated(o.output);
    sender.dispatch();
    loop.release(o.partition);
    return null;
  }

  private boolean current(Owned o) {
    return owned.get(o.partition) == o && !stopping;
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
    retryIfAssigned(o, why);
  }

  private void fenced(Owned o) {
    if (!current(o)) {
      return;
    }
    fenced.increment();
    LOG.warn(
        "{}={} partition={} epoch={} is owned by a newer epoch: fenced, state dropped",
        settings.stage(),
        settings.instanceId(),
        o.partition,
        o.epoch);
    owned.remove(o.partition);
    closeTask(o);
    if (assignedByGroup.contains(o.partition)) {
      // the group still gives us the partition: the newer epoch belonged to an owner that lost
      // it (a restore that raced a rebalance, a healed split brain); take it over again
      LOG.warn(
          "{}={} partition={} is still assigned here: taking it over again",
          settings.stage(),
          settings.instanceId(),
          o.partition);
      retryIfAssigned(o, "fenced");
    } else {
      failures.remove(o.partition);
    }
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
                if (ar.result() == Outcome.FENCED) {
                  fenced(o);
                } else if (ar.result() == Outcome.LOST_SEND) {
                  rewind(o, "a produced record was lost since the last checkpoint");
                } else if (ar.result() == Outcome.FAILED) {
                  // the task went on from a state no checkpoint holds; going back to the last
                  // stored one keeps every later replay identical to what is processed now
                  rewind(o, "its checkpoint could not be stored");
                }
              }
            });
      }
    }
  }

  private Future<Outcome> checkpoint(Owned o) {
    long startNs = System.nanoTime();
    byte[] state = o.task.snapshot();
    long snapshotNs = System.nanoTime() - startNs;
    Checkpoint cp = new Checkpoint(o.epoch, o.nextOffset, clock.millis(), state);
    String id = settings.checkpointId(o.partition);
    return sender
        .afterAcknowledged(
            () -> {
              if (o.sendFailure.get() != null) {
                return Outcome.LOST_SEND;
              }
              long storeStartNs = System.nanoTime();
              boolean saved = store.save(id, cp);
              checkpointDuration.record(
                  snapshotNs + System.nanoTime() - storeStartNs, TimeUnit.NANOSECONDS);
              checkpointSize.record(state.length);
              return saved ? Outcome.SAVED : Outcome.FENCED;
            })
        .otherwise(
            e -> {
              LOG.warn(
                  "{}={} checkpoint of partition {} failed",
                  settings.stage(),
                  settings.instanceId(),
                  o.partition,
                  e);
              return Outcome.FAILED;
            })
        .onSuccess(
            outcome -> {
              if (outcome == Outcome.SAVED) {
                Failures f = failures.get(o.partition);
                if (f != null && cp.nextOffset() >= f.atOffset()) {
                  failures.remove(o.partition);
                }
                loop.commit(Map.of(o.partition, cp.nextOffset()));
              }
            });
  }

  /** Ends ownership of a partition already removed from the map. */
  private Future<Void> release(Owned o, boolean checkpointFirst) {
    if (o.state != State.ACTIVE) {
      if (o.task != null) {
        closeTask(o);
      }
      return Future.succeededFuture();
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
    if (o.task != null) {
      try {
        o.task.close();
      } catch (RuntimeException e) {
        LOG.warn("closing the task of partition {} failed", o.partition, e);
      }
    }
  }
}

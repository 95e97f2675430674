package dev.skewer.model;

import dev.skewer.coordinator.stream.ModelMergeTasks;
import dev.skewer.core.frontier.InMemoryFrontier;
import dev.skewer.core.job.JobSpec;
import dev.skewer.node.ingest.ModelNodeTasks;
import dev.skewer.stage.PartitionTask;
import dev.skewer.stage.StageSettings;
import dev.skewer.testkit.time.ManualClock;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The system under test for one history: node and coordinator processes (the real stage runtime
 * with the real tasks) over one {@link MemoryBroker}, one checkpoint store and one manual clock,
 * and the history's steps played against them. The history plays the producers, the consumer groups
 * and the broker's failures.
 */
final class Cluster {

  /** How long a history may take to settle before it counts as stuck. */
  static final Duration STUCK = Duration.ofSeconds(60);

  private static final long START_MS = 1_000_000_000L;
  private static final long TICK_MS = 5;

  /** The nodes' producers refuse larger records, and the side topics take no larger ones. */
  static final int NODE_MAX_REQUEST_BYTES = 4_096;

  private final History history;
  private final ModelJob job;
  private final JobSpec spec;
  private final Vertx vertx;
  final MemoryBroker broker = new MemoryBroker(Boolean.getBoolean("skewer.model.trace"));
  final ManualClock clock = new ManualClock(START_MS);
  final FlakyCheckpointStore store = new FlakyCheckpointStore();
  private final InMemoryFrontier frontier = new InMemoryFrontier();
  private final List<StageProcess> nodes = new ArrayList<>();
  private final List<ModelNodeTasks> nodeTasks = new ArrayList<>();
  private final List<StageProcess> coordinators = new ArrayList<>();
  private final List<Long> given; // frontier values to hand over (baseline), or null

  /** The frontier handed to the nodes at each {@link Step.PushFrontier} (MIN: none). */
  final List<Long> pushed = new ArrayList<>();

  /**
   * Per events partition, where the frontier a node judges by went up: input offset → frontier, as
   * the task that went on from there saw it (a restored task forgets what it does not hold).
   */
  private final Map<Integer, TreeMap<Long, Long>> adoptions = new HashMap<>();

  private long frontierMs = Long.MIN_VALUE;
  private int restarts;
  final Map<String, Long> metrics = new HashMap<>();

  /**
   * @param given for a baseline run, the frontier values the original run handed over (in order);
   *     null to read them from the coordinators
   */
  Cluster(History history, Vertx vertx, List<Long> given) {
    this.history = history;
    this.job = history.job();
    this.spec = job.spec();
    this.vertx = vertx;
    this.given = given;
    broker.create(ModelJob.EVENTS, job.sources());
    broker.create(ModelJob.PARTIALS, job.partials());
    broker.create(ModelJob.RESULTS, 2);
    broker.create(ModelJob.LATE, 1);
    broker.create(ModelJob.DLQ, 1);
  }

  /** Starts every process and gives each its share of the partitions. */
  void start() throws Exception {
    for (int i = 0; i < job.nodes(); i++) {
      nodes.add(node("node-" + i));
    }
    for (int i = 0; i < job.coordinators(); i++) {
      coordinators.add(coordinator("coordinator-" + i));
    }
    assignRoundRobin(nodes, job.sources());
    assignRoundRobin(coordinators, job.partials());
    settle();
  }

  private static void assignRoundRobin(List<StageProcess> processes, int partitions)
      throws Exception {
    List<Set<Integer>> shares = new ArrayList<>();
    for (int i = 0; i < processes.size(); i++) {
      shares.add(new HashSet<>());
    }
    for (int p = 0; p < partitions; p++) {
      shares.get(p % processes.size()).add(p);
    }
    for (int i = 0; i < processes.size(); i++) {
      processes.get(i).assign(shares.get(i)).get(STUCK.toSeconds(), TimeUnit.SECONDS);
    }
  }

  private StageSettings settings(String stage, String id, String topic) {
    return new StageSettings(
        stage,
        id,
        topic,
        stage + "/model/" + topic + "/",
        false,
        history.maxPendingRecords(),
        Duration.ofMillis(TICK_MS),
        Duration.ofMillis(history.checkpointIntervalMs()),
        Duration.ofMillis(5),
        Duration.ofSeconds(10));
  }

  private StageProcess node(String id) throws Exception {
    ModelNodeTasks[] made = new ModelNodeTasks[1];
    StageProcess p =
        new StageProcess(
            id,
            ModelJob.EVENTS,
            broker,
            vertx,
            clock,
            history.maxPollRecords(),
            NODE_MAX_REQUEST_BYTES,
            registry -> {
              made[0] =
                  new ModelNodeTasks(
                      spec, job.partials(), registry, id, clock, broker, NODE_MAX_REQUEST_BYTES);
              return made[0];
            },
            new ObservedTask.FrontierWatch() {
              @Override
              public long frontierMs(PartitionTask task) {
                return ModelNodeTasks.aggregator(task).frontierMs();
              }

              @Override
              public void adopted(int partition, long position, long frontierMs) {
                broker.note(
                    id
                        + " partition "
                        + partition
                        + " adopts frontier "
                        + frontierMs
                        + " at offset "
                        + position);
                synchronized (adoptions) {
                  adoptions
                      .computeIfAbsent(partition, x -> new TreeMap<>())
                      .merge(position, frontierMs, Math::max);
                }
              }
            },
            (partition, from, task) -> {
              long restored = task.frontierMs();
              synchronized (adoptions) {
                TreeMap<Long, Long> a = adoptions.computeIfAbsent(partition, x -> new TreeMap<>());
                a.tailMap(from, true).clear(); // what the new task does not hold is redone
                if (restored != Long.MIN_VALUE
                    && a.values().stream().mapToLong(Long::longValue).max().orElse(Long.MIN_VALUE)
                        < restored) {
                  a.merge(from, restored, Math::max);
                }
              }
            });
    if (frontierMs != Long.MIN_VALUE) {
      made[0].frontierMs(frontierMs); // what its frontier reader finds
    }
    nodeTasks.add(made[0]);
    p.start(settings("node", id, ModelJob.EVENTS), store, clock);
    return p;
  }

  private StageProcess coordinator(String id) throws Exception {
    StageProcess p =
        new StageProcess(
            id,
            ModelJob.PARTIALS,
            broker,
            vertx,
            clock,
            history.maxPollRecords(),
            Integer.MAX_VALUE,
            registry -> new ModelMergeTasks(spec, job.sources(), registry, id, clock, broker),
            null,
            null);
    p.start(settings("coordinator", id, ModelJob.PARTIALS), store, clock);
    return p;
  }

  /** Plays every step of the history. */
  void run() throws Exception {
    for (Step step : history.steps()) {
      play(step);
    }
  }

  /** Nanoseconds spent per kind of step, over all clusters (the summary shows where time goes). */
  static final Map<String, AtomicLong> TIME = new ConcurrentHashMap<>();

  static void time(String what, long startNs) {
    TIME.computeIfAbsent(what, k -> new AtomicLong()).addAndGet(System.nanoTime() - startNs);
  }

  void play(Step step) throws Exception {
    long t0 = System.nanoTime();
    try {
      playUntimed(step);
    } finally {
      time(step.getClass().getSimpleName(), t0);
    }
  }

  private void playUntimed(Step step) throws Exception {
    broker.note("step: " + step);
    if (step instanceof Step.Append a) {
      append(a.events());
    } else if (step instanceof Step.Settle) {
      settle();
    } else if (step instanceof Step.Advance a) {
      settle();
      advance(a.ms());
    } else if (step instanceof Step.PushFrontier) {
      pushFrontier();
    } else if (step instanceof Step.Move m) {
      move(processes(m.stage()), m.partition(), m.to());
    } else if (step instanceof Step.Restart r) {
      restart(r.stage(), r.process());
    } else if (step instanceof Step.FailNext f) {
      processes(f.stage()).get(f.process()).producer.failNext(f.topic(), f.skip());
    } else if (step instanceof Step.FailCheckpoint f) {
      store.failNextSave(f.stage() == Step.Stage.NODE ? "node/" : "coordinator/");
    } else if (step instanceof Step.Stall s) {
      processes(s.stage()).get(s.process()).producer.closeGate();
    } else if (step instanceof Step.Release r) {
      release(processes(r.stage()).get(r.process()), r.loseFirst(), r.othersAfterRetake());
    } else if (step instanceof Step.End) {
      end();
    }
  }

  private List<StageProcess> processes(Step.Stage stage) {
    return stage == Step.Stage.NODE ? nodes : coordinators;
  }

  private void append(List<InputEvent> events) {
    for (InputEvent e : events) {
      broker.append(
          ModelJob.EVENTS,
          e.partition(),
          e.recordTimestampMs(),
          e.recordKey().getBytes(StandardCharsets.UTF_8),
          e.json(),
          new RecordHeaders());
    }
  }

  /**
   * End of input: silence until every node task is finalized (idle alone does not close its
   * windows). A tick right after back-pressure does not count the time before it as silence, so it
   * may take more than one round.
   *
   * <p>The clock stops here, so a partition rewound after the last round would re-read its records
   * and never go idle again: its windows would stay open and its results missing, an artefact of
   * the stopped clock, not of the runtime. So a checkpoint failure armed but not yet struck is
   * withdrawn first (it strikes on a real-time timer, possibly after the rounds), and a round
   * counts only when every assigned partition is consuming, finalized, and in the same task (same
   * epoch) as before it — a rewind during the round (a failed send of a finalization) takes another
   * round.
   */
  private void end() throws Exception {
    settle();
    store.withdrawFailures();
    settle();
    for (int round = 0; round < 5; round++) {
      Map<String, Object> before = nodeTasks();
      advance(ModelJob.FINALIZE_AFTER_IDLE_MS + 100);
      settle();
      boolean allFinalized = true;
      for (StageProcess n : nodes) {
        Map<Integer, Boolean> finalized = n.eachActive(t -> ModelNodeTasks.finalized(t.task));
        allFinalized &=
            finalized.keySet().equals(n.assigned()) && finalized.values().stream().allMatch(f -> f);
      }
      if (allFinalized && before.equals(nodeTasks())) {
        settle(); // a tick after the last settle may be the one that finalized: deliver its output
        return;
      }
    }
  }

  /**
   * Every node's consuming tasks, by process and partition (identity: a rewind makes a new one).
   */
  private Map<String, Object> nodeTasks() throws Exception {
    Map<String, Object> tasks = new HashMap<>();
    for (StageProcess n : nodes) {
      n.eachActive(t -> t).forEach((p, t) -> tasks.put(n + "/" + p, t));
    }
    return tasks;
  }

  /** Moves processing time and waits until every node task has had a tick at the new time. */
  private void advance(long ms) throws Exception {
    clock.advance(ms);
    long now = clock.millis();
    List<ObservedTask> tasks = new ArrayList<>();
    for (StageProcess p : nodes) {
      tasks.addAll(p.active().values());
    }
    await(
        () -> tasks.stream().allMatch(t -> t.closed() || t.lastTickMs() >= now),
        () -> "node tasks ticking");
  }

  /** Reads the coordinators' frontier (or takes the given one) and hands it to the nodes. */
  private void pushFrontier() throws Exception {
    settle();
    long value;
    if (given != null) {
      value = pushed.size() < given.size() ? given.get(pushed.size()) : Long.MIN_VALUE;
    } else {
      for (StageProcess c : coordinators) {
        Map<Integer, Long> byPartition =
            c.eachActive(t -> ModelMergeTasks.merger(t.task).frontierMs());
        byPartition.forEach(
            (q, f) -> {
              if (f != Long.MIN_VALUE) {
                frontier.publish(q, f);
              }
            });
      }
      value = frontier.frontierMs(job.partials());
    }
    pushed.add(value);
    if (value != Long.MIN_VALUE && value > frontierMs) {
      frontierMs = value;
      for (ModelNodeTasks t : nodeTasks) {
        t.frontierMs(value);
      }
      // idle partitions adopt it at their next checkpoint; the others never do
      long f = value;
      await(
          () -> {
            try {
              for (StageProcess n : nodes) {
                for (boolean adopted :
                    n.eachActive(t -> !ModelNodeTasks.idle(t.task) || t.frontierMs() >= f)
                        .values()) {
                  if (!adopted) {
                    return false;
                  }
                }
              }
              return true;
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
          },
          () -> "idle partitions adopting the frontier");
    }
  }

  private void move(List<StageProcess> processes, int partition, int to) throws Exception {
    StageProcess from = null;
    for (StageProcess p : processes) {
      if (p.assigned().contains(partition)) {
        from = p;
      }
    }
    StageProcess target = processes.get(to);
    Set<Integer> without = new HashSet<>(from.assigned());
    without.remove(partition);
    from.assign(without).get(STUCK.toSeconds(), TimeUnit.SECONDS);
    Set<Integer> with = new HashSet<>(target.assigned());
    with.add(partition);
    target.assign(with).get(STUCK.toSeconds(), TimeUnit.SECONDS);
  }

  private void restart(Step.Stage stage, int index) throws Exception {
    List<StageProcess> processes = processes(stage);
    StageProcess old = processes.get(index);
    Set<Integer> owned = old.assigned();
    collectMetrics(old);
    old.stop();
    restarts++;
    String id = old.id.replaceAll("\\.r\\d+$", "") + ".r" + restarts;
    StageProcess fresh = stage == Step.Stage.NODE ? node(id) : coordinator(id);
    processes.set(index, fresh);
    fresh.assign(owned).get(STUCK.toSeconds(), TimeUnit.SECONDS);
  }

  /**
   * Waits until the stalled process is held back by back-pressure, has read all it can, or is
   * taking a partition over again (which waits for the held sends), then lets the broker
   * acknowledge again.
   */
  private void release(StageProcess p, boolean loseFirst, boolean othersAfterRetake)
      throws Exception {
    await(
        () -> {
          if (p.producer.held() > history.maxPendingRecords()) {
            return true;
          }
          try {
            Map<Integer, ObservedTask> active = p.active();
            if (!active.keySet().equals(p.assigned())) {
              return true; // a partition is being taken over again: it waits for these sends
            }
            for (ObservedTask t : active.values()) {
              if (t.nextOffset() < broker.end(p.inputTopic, t.partition)) {
                return false;
              }
            }
            return true;
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        },
        () -> p.id + " held back or caught up");
    if (loseFirst && othersAfterRetake) {
      Map<Integer, Long> epochs = p.eachActive(t -> t.epoch);
      p.producer.loseFirstHeld();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
      while (!retaken(p, epochs) && System.nanoTime() < deadline) {
        LockSupport.parkNanos(200_000); // a retake, or none for a second: both are legal
      }
      p.producer.openGate(false);
    } else {
      p.producer.openGate(loseFirst);
    }
  }

  /** Whether a partition of {@code p} consumes under a newer epoch than in {@code epochs}. */
  private static boolean retaken(StageProcess p, Map<Integer, Long> epochs) {
    try {
      return p.eachActive(t -> t.epoch).entrySet().stream()
          .anyMatch(e -> e.getValue() > epochs.getOrDefault(e.getKey(), Long.MAX_VALUE));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Waits until every process has read its input to the end with nothing unacknowledged. */
  void settle() throws Exception {
    String[] why = {null};
    int[] quietRounds = {0};
    await(
        () -> {
          try {
            String reason = null;
            for (List<StageProcess> stage : List.of(nodes, coordinators, nodes)) {
              for (StageProcess p : stage) {
                reason = reason == null ? p.unquiet() : reason;
              }
            }
            why[0] = reason;
            quietRounds[0] = reason == null ? quietRounds[0] + 1 : 0;
            return quietRounds[0] >= 2;
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        },
        () -> "settling: " + why[0]);
  }

  private static void await(BooleanSupplier condition, Supplier<String> what) {
    long deadline = System.nanoTime() + STUCK.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new StuckException("stuck for " + STUCK.toSeconds() + " s " + what.get());
      }
      LockSupport.parkNanos(500_000);
    }
  }

  /** A history that stopped making progress. */
  static final class StuckException extends RuntimeException {
    StuckException(String message) {
      super(message);
    }
  }

  /** The counters a history's summary adds up (what the failures made the runtimes do). */
  static final List<String> COUNTED =
      List.of(
          "skewer.partitions.restores",
          "skewer.partitions.rewinds",
          "skewer.partitions.fenced",
          "skewer.producer.send.failures",
          "skewer.partials.stale",
          "skewer.partials.lost",
          "skewer.partials.late",
          "skewer.node.side.outputs.skipped",
          "skewer.node.side.outputs.truncated");

  private void collectMetrics(StageProcess p) {
    p.registry
        .getMeters()
        .forEach(
            m -> {
              String name = m.getId().getName();
              if (COUNTED.contains(name)) {
                double v = m.measure().iterator().next().getValue();
                metrics.merge(name, (long) v, Long::sum);
              }
            });
  }

  /** Where each partition's frontier went up, as the last task of the partition holds it. */
  Map<Integer, Map<Long, Long>> adoptions() {
    synchronized (adoptions) {
      Map<Integer, Map<Long, Long>> copy = new TreeMap<>();
      adoptions.forEach(
          (p, a) -> {
            if (!a.isEmpty()) {
              copy.put(p, new TreeMap<>(a));
            }
          });
      return copy;
    }
  }

  /** The watermarks every process holds, for failure reports. */
  String diagnostics() {
    StringBuilder sb = new StringBuilder();
    try {
      for (StageProcess n : nodes) {
        n.eachActive(
                t -> {
                  var a = ModelNodeTasks.aggregator(t.task);
                  return "epoch "
                      + t.epoch
                      + " wm "
                      + a.watermarkMs()
                      + " frontier "
                      + a.frontierMs()
                      + " close "
                      + a.closeThroughMs()
                      + " open slices "
                      + a.openSlices()
                      + (ModelNodeTasks.idle(t.task) ? " idle" : "");
                })
            .forEach(
                (p, d) ->
                    sb.append("  ")
                        .append(n)
                        .append(" p")
                        .append(p)
                        .append(": ")
                        .append(d)
                        .append('\n'));
      }
      for (StageProcess c : coordinators) {
        c.eachActive(
                t -> {
                  var m = ModelMergeTasks.merger(t.task);
                  var w = m.watermarks();
                  StringBuilder d = new StringBuilder();
                  d.append("epoch ")
                      .append(t.epoch)
                      .append(" close ")
                      .append(m.globalWatermarkMs());
                  d.append(" lateness ")
                      .append(w.latenessMs())
                      .append(" held ")
                      .append(m.heldPartials());
                  for (int s = 0; s < w.sourcePartitions(); s++) {
                    d.append("\n      source ")
                        .append(s)
                        .append(": wm ")
                        .append(w.watermarkMs(s))
                        .append(" close ")
                        .append(w.closeMs(s))
                        .append(" epoch ")
                        .append(w.epoch(s))
                        .append(w.idle(s) ? " idle" : "")
                        .append(w.gap(s) ? " GAP" : "");
                  }
                  return d.toString();
                })
            .forEach(
                (q, d) ->
                    sb.append("  ")
                        .append(c)
                        .append(" q")
                        .append(q)
                        .append(": ")
                        .append(d)
                        .append('\n'));
      }
    } catch (Exception e) {
      sb.append("  (diagnostics failed: ").append(e).append(")\n");
    }
    return sb.toString();
  }

  /** Stops every process. */
  void close() throws Exception {
    for (StageProcess p : nodes) {
      collectMetrics(p);
      p.stop();
    }
    for (StageProcess p : coordinators) {
      collectMetrics(p);
      p.stop();
    }
  }
}

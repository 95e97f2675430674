package dev.skewer.stage;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.cluster.DeadMemberEviction;
import dev.skewer.core.frontier.Frontier;
import dev.skewer.core.health.Readiness;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.core.kafka.TopicProvisioner;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.VerticleBase;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a node and a coordinator verticle share: the {@link PartitionRuntime} a subclass builds in
 * {@link #start}, the periodic jobs beside it (cancelled on stop, before the runtime stops), at
 * most one blocking job of each kind in flight, and the thread-safe views of the runtime the
 * process's HTTP endpoints and meters read.
 *
 * @param <T> the stage's partition task
 */
public abstract class StageVerticle<T extends PartitionTask> extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(StageVerticle.class);

  protected final MeterRegistry registry;
  protected final Clock clock;
  protected final CheckpointStore checkpoints;
  protected final HazelcastInstance hazelcast; // null: no Hazelcast member
  protected final Frontier frontier;

  /** The smallest watermark of the owned partitions' behind the wall clock (a gauge, seconds). */
  protected final AtomicLong watermarkLagMs = new AtomicLong();

  private static final Duration PARTITION_COUNT_TIMEOUT = Duration.ofSeconds(30);

  /** Threads of the verticle's own pool for {@link #offLoopOnce} jobs. */
  public static final int SIDE_JOB_THREADS = 2;

  private final List<Long> timers = new ArrayList<>();
  private final Set<String> inFlight = new HashSet<>();
  private final List<PacedJob> pacedJobs = new ArrayList<>();
  // periodic off-loop jobs: never on the runtime's workers; null until the first, and after stop
  private ExecutorService sideJobs;
  private boolean stopping; // event loop only: no side job starts or completes after stop()
  private volatile PartitionRuntime<T> runtime;

  protected StageVerticle(StageServices services) {
    this.registry = services.registry();
    this.clock = services.clock();
    this.checkpoints = services.checkpoints();
    this.hazelcast = services.hazelcast();
    this.frontier = services.frontier();
  }

  /**
   * Registers the stage's two gauges, both tagged {@code tag=id}: {@code stateName}, the size of
   * the state the tasks hold (read from {@code state}), and {@code watermarkLagName}, {@link
   * #watermarkLagMs} in seconds.
   */
  protected final void registerGauges(
      String stateName, AtomicLong state, String watermarkLagName, String tag, String id) {
    Gauge.builder(stateName, state, AtomicLong::get).tag(tag, id).register(registry);
    Gauge.builder(watermarkLagName, watermarkLagMs, ms -> ms.get() / 1000.0)
        .tag(tag, id)
        .baseUnit("seconds")
        .register(registry);
  }

  /** The partition count of {@code topic} (blocking; waits up to 30 s for its metadata). */
  protected static int partitionsOf(KafkaSettings kafka, String topic) {
    return TopicProvisioner.partitionCount(kafka, topic, PARTITION_COUNT_TIMEOUT);
  }

  /** {@link #partitionsOf(KafkaSettings, String)} through {@code admin}. */
  public static int partitionsOf(Admin admin, String topic) {
    return TopicProvisioner.partitionCount(admin, topic, PARTITION_COUNT_TIMEOUT);
  }

  /**
   * The stage's Kafka clients in group {@code groupId}: a static member named after this process's
   * Hazelcast member ({@link #groupInstanceId}), client ids {@code skewer-<id>-<input>} and {@code
   * skewer-<id>-<output>}, the stage's consumer tuning below the user's properties, and
   * transactional producers that take the checkpoint store's largest record.
   */
  protected final KafkaStageClients clients(
      KafkaSettings kafka,
      String groupId,
      String id,
      String input,
      String output,
      Map<String, Object> consumerDefaults) {
    return new KafkaStageClients(
        kafka,
        groupId,
        groupInstanceId(),
        "skewer-" + id + "-" + input,
        "skewer-" + id + "-" + output,
        consumerDefaults,
        checkpoints.maxRecordBytes());
  }

  /**
   * The stage consumer's {@code group.instance.id}: this process's Hazelcast member's ({@link
   * DeadMemberEviction#groupInstanceId}), so that the survivors can remove it from the group when
   * the member leaves; null (a dynamic member) without Hazelcast.
   */
  protected final String groupInstanceId() {
    return hazelcast == null
        ? null
        : DeadMemberEviction.groupInstanceId(hazelcast.getCluster().getLocalMember());
  }

  /** Starts {@code r}; {@link #runtime()} is {@code r} from now on. */
  protected final Future<Void> startRuntime(PartitionRuntime<T> r) {
    runtime = r;
    r.afterEachBatch(this::runOverdueJobs);
    return r.start();
  }

  /** The runtime, once {@link #startRuntime} ran (event loop). */
  protected final PartitionRuntime<T> runtime() {
    return runtime;
  }

  /** Runs {@code job} on the event loop every {@code periodMs} until the verticle stops. */
  protected final void every(long periodMs, Runnable job) {
    timers.add(vertx.setPeriodic(periodMs, t -> job.run()));
  }

  /**
   * {@link #every}, and also between two batches of records once {@code periodMs} has passed since
   * its last run: a job that must keep its rhythm while the event loop works through a backlog,
   * when timers wait behind the batches (see {@link PartitionRuntime#afterEachBatch}).
   */
  protected final void everyEvenWhenBusy(long periodMs, Runnable job) {
    PacedJob paced = new PacedJob(periodMs, job);
    pacedJobs.add(paced);
    every(
        periodMs,
        () -> {
          // timers that waited behind batches fire together: run once for them
          if (clock.millis() - paced.lastRunMs >= periodMs / 2) {
            paced.run();
          }
        });
  }

  /** Between two batches: every {@link #everyEvenWhenBusy} job whose period has passed. */
  void runOverdueJobs() {
    if (pacedJobs.isEmpty()) {
      return;
    }
    long nowMs = clock.millis();
    for (PacedJob j : pacedJobs) {
      if (nowMs - j.lastRunMs >= j.periodMs) {
        j.run();
      }
    }
  }

  /** A periodic job and when it last ran (event loop only). */
  private final class PacedJob {
    final long periodMs;
    final Runnable job;
    long lastRunMs = Long.MIN_VALUE / 2;

    PacedJob(long periodMs, Runnable job) {
      this.periodMs = periodMs;
      this.job = job;
    }

    void run() {
      lastRunMs = clock.millis();
      job.run();
    }
  }

  /**
   * Runs {@code action} for each active task (event loop), including one whose snapshot is being
   * encoded: see {@link PartitionRuntime#forEachActive}.
   */
  protected final void forEachTask(BiConsumer<Integer, T> action) {
    if (runtime != null) {
      runtime.forEachActive(action);
    }
  }

  /**
   * Runs {@code blocking} on a worker unless the previous job named {@code kind} is still running
   * (then nothing happens), and {@code done} on the event loop when it completes. For periodic
   * reads and writes of shared state that must not pile up behind a slow store. The workers are the
   * verticle's own ({@value #SIDE_JOB_THREADS} threads), not the pool the runtime's sends, commits
   * and checkpoints run on: a store that hangs (a Hazelcast member paused or being removed) can
   * stall these jobs, never the partitions.
   */
  protected final <R> void offLoopOnce(
      String kind, Callable<R> blocking, Handler<AsyncResult<R>> done) {
    if (stopping || !inFlight.add(kind)) {
      return;
    }
    if (sideJobs == null) {
      sideJobs = Executors.newFixedThreadPool(SIDE_JOB_THREADS, sideJobThreads());
    }
    Context loop = context;
    sideJobs.execute(
        () -> {
          Future<R> result;
          try {
            result = Future.succeededFuture(blocking.call());
          } catch (Throwable e) { // as Vert.x's executeBlocking: a failed result, not a dead thread
            result = Future.failedFuture(e);
          }
          Future<R> outcome = result;
          try {
            loop.runOnContext(
                v -> {
                  inFlight.remove(kind);
                  if (!stopping) {
                    done.handle(outcome);
                  }
                });
          } catch (RejectedExecutionException e) {
            // Vert.x closed while the job ran (a process stopping): nothing is left to hand it to
            LOG.debug("{} job ended after the verticle stopped; its result is dropped", kind);
          }
        });
  }

  private ThreadFactory sideJobThreads() {
    String prefix = "skewer-side-jobs-" + System.identityHashCode(this) + "-";
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + n.getAndIncrement());
      t.setDaemon(true); // a job hung on a store must not keep the process alive
      return t;
    };
  }

  /** Owned partitions that are restored and consuming (thread-safe). */
  public Set<Integer> ownedPartitions() {
    PartitionRuntime<T> r = runtime;
    return r == null ? Set.of() : r.ownedPartitions();
  }

  /** Records that could not be sent, ever (thread-safe). */
  public long sendFailures() {
    PartitionRuntime<T> r = runtime;
    return r == null ? 0 : r.sendFailures();
  }

  /** The stage's Kafka consumer once started (for client metrics), else null. */
  public Consumer<byte[], byte[]> kafkaConsumer() {
    PartitionRuntime<T> r = runtime;
    return r == null ? null : r.consumer();
  }

  /**
   * The stage's shared Kafka producer once started (for client metrics); null before, and with
   * exactly_once (one transactional producer per owned partition).
   */
  public Producer<byte[], byte[]> kafkaProducer() {
    PartitionRuntime<T> r = runtime;
    return r == null ? null : r.producer();
  }

  /** Whether the stage is restored and consuming (thread-safe). */
  public Readiness readiness() {
    PartitionRuntime<T> r = runtime;
    return r == null ? Readiness.down("starting") : r.readiness();
  }

  /**
   * Cancels the periodic jobs, stops the runtime (final checkpoints), then {@link #stopped}; a side
   * job still running finishes on its own thread and its result is dropped.
   */
  @Override
  public final Future<?> stop() {
    timers.forEach(vertx::cancelTimer);
    timers.clear();
    stopping = true;
    Future<Void> runtimeStopped = runtime == null ? Future.succeededFuture() : runtime.stop();
    return runtimeStopped
        .eventually(this::stopped)
        .eventually(
            () -> {
              if (sideJobs != null) {
                sideJobs.shutdown(); // a running job finishes; its result is dropped
              }
              return Future.succeededFuture();
            });
  }

  /** What the subclass closes after the runtime stopped; nothing by default. */
  protected Future<?> stopped() {
    return Future.succeededFuture();
  }
}

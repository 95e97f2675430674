package dev.skewer.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skewer.core.checkpoint.InMemoryCheckpointStore;
import dev.skewer.core.frontier.Frontier;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The rules StageVerticle adds around the runtime: periodic jobs and one blocking job a kind. */
class StageVerticleTest {

  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    vertx.close().await();
  }

  /** What a verticle without a runtime, Hazelcast or frontier needs. */
  static StageServices services() {
    return new StageServices(
        new SimpleMeterRegistry(),
        Clock.systemUTC(),
        new InMemoryCheckpointStore(),
        null,
        Frontier.none());
  }

  /** A verticle without a runtime: what it schedules and runs, counted. */
  static final class Probe extends StageVerticle<CountingTask> {
    final AtomicInteger ticks = new AtomicInteger();
    final AtomicInteger blockingRuns = new AtomicInteger();
    final AtomicInteger completions = new AtomicInteger();
    final CountDownLatch release = new CountDownLatch(1);

    Probe() {
      super(services());
    }

    @Override
    public Future<?> start() {
      every(10, ticks::incrementAndGet);
      return Future.succeededFuture();
    }

    void slowJob() {
      offLoopOnce(
          "slow",
          () -> {
            blockingRuns.incrementAndGet();
            release.await(10, TimeUnit.SECONDS);
            return null;
          },
          ar -> completions.incrementAndGet());
    }
  }

  @Test
  void shouldSkipABlockingJobWhileTheLastOneOfItsKindRuns() throws Exception {
    Probe probe = new Probe();
    String id = vertx.deployVerticle(probe).await();
    vertx.runOnContext(v -> probe.slowJob());
    await().atMost(Duration.ofSeconds(10)).until(() -> probe.blockingRuns.get() == 1);
    vertx.runOnContext(v -> probe.slowJob()); // skipped: the first is still running
    vertx.runOnContext(v -> probe.release.countDown());
    await().atMost(Duration.ofSeconds(10)).until(() -> probe.completions.get() == 1);
    vertx.runOnContext(v -> probe.slowJob()); // runs: nothing of its kind in flight
    await().atMost(Duration.ofSeconds(10)).until(() -> probe.completions.get() == 2);
    assertThat(probe.blockingRuns).hasValue(2);
    vertx.undeploy(id).await();
  }

  /**
   * Side jobs that hang (a Hazelcast member paused: hot-key reports, frontier reads) must not take
   * the workers the runtime's sends, commits and checkpoints need. A cross-process run stalled
   * every partition of a node this way: four hung hot-key reports held its four workers.
   */
  @Test
  void shouldRunBlockingJobsOffThePoolTheRuntimeUses() throws Exception {
    Vertx small = Vertx.vertx(new VertxOptions().setWorkerPoolSize(1));
    try {
      Probe probe = new Probe();
      String id = small.deployVerticle(probe).await();
      CountDownLatch hung = new CountDownLatch(1);
      AtomicInteger started = new AtomicInteger();
      for (String kind : new String[] {"reports", "frontier", "limits"}) {
        small.runOnContext(
            v ->
                probe.offLoopOnce(
                    kind,
                    () -> {
                      started.incrementAndGet();
                      return hung.await(30, TimeUnit.SECONDS);
                    },
                    ar -> {}));
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> started.get() >= 1);

      // the pool's only worker is still free for the runtime
      assertThat(
              small
                  .executeBlocking(() -> "runtime work", false)
                  .toCompletionStage()
                  .toCompletableFuture()
                  .get(5, TimeUnit.SECONDS))
          .isEqualTo("runtime work");
      hung.countDown();
      small.undeploy(id).await();
    } finally {
      small.close().await();
    }
  }

  /** A verticle with one job paced by the hour and one every 10 ms, both kept between batches. */
  static final class PacedProbe extends StageVerticle<CountingTask> {
    final AtomicInteger hourly = new AtomicInteger();
    final AtomicInteger frequent = new AtomicInteger();

    PacedProbe() {
      super(services());
    }

    @Override
    public Future<?> start() {
      everyEvenWhenBusy(3_600_000, hourly::incrementAndGet);
      everyEvenWhenBusy(10, frequent::incrementAndGet);
      return Future.succeededFuture();
    }
  }

  @Test
  void shouldRunAPacedJobBetweenBatchesOnlyWhenItsPeriodHasPassed() throws Exception {
    PacedProbe probe = new PacedProbe();
    String id = vertx.deployVerticle(probe).await();
    // its timer keeps it going as every() does
    await().atMost(Duration.ofSeconds(10)).until(() -> probe.frequent.get() >= 3);
    // between two batches: the hourly job, never run yet, is overdue; right after, it is not
    CountDownLatch between = new CountDownLatch(1);
    vertx.runOnContext(
        v -> {
          probe.runOverdueJobs();
          probe.runOverdueJobs();
          between.countDown();
        });
    assertThat(between.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(probe.hourly).hasValue(1);
    vertx.undeploy(id).await();
  }

  @Test
  void shouldCancelPeriodicJobsOnStopAndReportNotReadyWithoutARuntime() {
    Probe probe = new Probe();
    String id = vertx.deployVerticle(probe).await();
    await().atMost(Duration.ofSeconds(10)).until(() -> probe.ticks.get() >= 3);
    assertThat(probe.readiness().ready()).isFalse();
    assertThat(probe.ownedPartitions()).isEmpty();
    assertThat(probe.kafkaConsumer()).isNull();
    vertx.undeploy(id).await();
    int afterStop = probe.ticks.get();
    // a periodic job still scheduled would tick every 10 ms: five times in the next 100 ms at least
    CountDownLatch wait = new CountDownLatch(1);
    vertx.setTimer(100, t -> wait.countDown());
    await().atMost(Duration.ofSeconds(10)).until(() -> wait.getCount() == 0);
    assertThat(probe.ticks).hasValue(afterStop);
  }

  /**
   * A process asked to stop (Ctrl-C, SIGTERM) closes Vert.x while a side job may still be running
   * (a hot-key report waiting on Hazelcast): its result comes back after the event loop is gone. It
   * is dropped quietly, not thrown on the job's thread (where it was printed as an uncaught
   * RejectedExecutionException on one stop in about twenty-five).
   */
  @Test
  void shouldDropASideJobsResultThatArrivesAfterVertxClosed() throws Exception {
    Vertx own = Vertx.vertx();
    Probe probe = new Probe();
    own.deployVerticle(probe).await();
    own.runOnContext(v -> probe.slowJob());
    await().atMost(Duration.ofSeconds(10)).until(() -> probe.blockingRuns.get() == 1);
    Thread job =
        Thread.getAllStackTraces().keySet().stream()
            .filter(
                t -> t.getName().startsWith("skewer-side-jobs-" + System.identityHashCode(probe)))
            .findFirst()
            .orElseThrow();
    List<Throwable> uncaught = new CopyOnWriteArrayList<>();
    Thread.UncaughtExceptionHandler before = job.getUncaughtExceptionHandler();
    job.setUncaughtExceptionHandler((t, e) -> uncaught.add(e));
    try {
      own.close().await();
      probe.release.countDown();
      job.join(10_000); // the pool is shut down with Vert.x: its thread ends after the job
      assertThat(job.isAlive()).isFalse();
    } finally {
      job.setUncaughtExceptionHandler(before);
    }
    assertThat(uncaught).isEmpty();
    assertThat(probe.completions).hasValue(0);
  }
}

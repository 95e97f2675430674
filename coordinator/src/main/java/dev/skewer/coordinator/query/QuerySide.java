package dev.skewer.coordinator.query;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.core.job.JobNames;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.KafkaSettings;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything a coordinator runs for the query API besides the HTTP server: the view consumer, the
 * publication of its partitions' {@link StageStatus} once a second, the nodes' load, and the
 * lateness advice in the log (INFO, at most once a minute, when more late events were measured).
 */
public final class QuerySide implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(QuerySide.class);
  static final long ADVICE_LOG_MS = 60_000;
  static final long PUBLISH_CHECK_MS = 100;
  static final long PUBLISH_REFRESH_MS = 1_000;

  private final ViewConsumer consumer;
  private final QueryService service;
  private final ScheduledExecutorService scheduler;
  private final ResultsView view;
  private final SideOutputStats side;
  private final KafkaSettings kafka;
  private Admin admin; // lazily, on the scheduler or an API worker
  private long adviceLogged = 0;
  private Map<Integer, Long> lastPublished = Map.of(); // scheduler thread
  private long lastPublishMs = Long.MIN_VALUE / 2;

  private QuerySide(
      JobSpec job,
      KafkaSettings kafka,
      String coordinatorId,
      QuerySettings settings,
      HazelcastInstance hazelcast,
      Clock clock,
      Supplier<List<StageStatus>> ownStatus,
      ResultHandoff handoff) {
    JobNames names = JobNames.of(job);
    this.kafka = kafka;
    this.view = new ResultsView(settings.viewMaxBytes());
    this.side = new SideOutputStats(job);
    StageStatusStore stages =
        hazelcast != null
            ? StageStatusStore.hazelcast(hazelcast, names.stageStatusMap())
            : StageStatusStore.inMemory(clock);
    NodeLoad load =
        new NodeLoad(
            hazelcast,
            names.hotKeyReportsMap(),
            this::admin,
            settings.nodeGroup() == null ? names.nodesGroup() : settings.nodeGroup(),
            job.topics().events(),
            clock);
    this.service = new QueryService(job, view, side, stages, load, clock);
    this.consumer =
        new ViewConsumer(
            job, kafka, "skewer-" + coordinatorId + "-query", view, side, handoff, clock);
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "skewer-" + coordinatorId + "-query-status");
              t.setDaemon(true);
              return t;
            });
    scheduler.scheduleWithFixedDelay(
        () -> publish(stages, ownStatus, clock.millis()),
        PUBLISH_CHECK_MS,
        PUBLISH_CHECK_MS,
        TimeUnit.MILLISECONDS);
    scheduler.scheduleWithFixedDelay(
        () -> logAdvice(job), ADVICE_LOG_MS, ADVICE_LOG_MS, TimeUnit.MILLISECONDS);
    scheduler.scheduleWithFixedDelay(
        () -> {
          try {
            service.refreshStatus();
          } catch (RuntimeException e) {
            LOG.debug("stage status read failed", e);
          }
        },
        QueryService.STATUS_CACHE_MS,
        QueryService.STATUS_CACHE_MS,
        TimeUnit.MILLISECONDS);
  }

  /**
   * Starts the query side of one coordinator.
   *
   * @param ownStatus the merge stage's status of the partitions this coordinator owns
   * @param handoff the results this process's coordinator writes, handed to the view so it need not
   *     parse them back (null: the view parses every result it reads)
   */
  public static QuerySide start(
      JobSpec job,
      KafkaSettings kafka,
      String coordinatorId,
      QuerySettings settings,
      HazelcastInstance hazelcast,
      Clock clock,
      Supplier<List<StageStatus>> ownStatus,
      ResultHandoff handoff) {
    QuerySide q =
        new QuerySide(job, kafka, coordinatorId, settings, hazelcast, clock, ownStatus, handoff);
    q.consumer.start();
    LOG.info("query view started: {}", settings);
    return q;
  }

  public QueryService service() {
    return service;
  }

  /** Result records the view read that this process's coordinator had handed over unparsed. */
  public long resultsHandedOver() {
    return consumer.handedOver();
  }

  /** Result records the view parsed: other coordinators', or its own that missed the handoff. */
  public long resultsParsed() {
    return consumer.parsed();
  }

  public ResultsView view() {
    return view;
  }

  public SideOutputStats sideOutputs() {
    return side;
  }

  /**
   * Publishes this coordinator's partitions' status when a watermark moved (so a window shows
   * closed within ~{@value #PUBLISH_CHECK_MS} ms of its close) and at least every {@value
   * #PUBLISH_REFRESH_MS} ms (the entries expire after {@value StageStatusStore#TTL_SECONDS} s).
   */
  private void publish(StageStatusStore stages, Supplier<List<StageStatus>> ownStatus, long now) {
    try {
      List<StageStatus> mine = ownStatus.get();
      if (mine.isEmpty()) {
        return;
      }
      Map<Integer, Long> watermarks = new HashMap<>();
      for (StageStatus s : mine) {
        watermarks.put(s.partition(), s.globalWatermarkMs());
      }
      if (!watermarks.equals(lastPublished) || now - lastPublishMs >= PUBLISH_REFRESH_MS) {
        stages.publish(mine);
        lastPublished = watermarks;
        lastPublishMs = now;
      }
    } catch (RuntimeException e) {
      LOG.debug("stage status publication failed", e);
    }
  }

  /** Waits until the view has read what the topics held at start. */
  public boolean awaitCaughtUp(Duration timeout) throws InterruptedException {
    return consumer.awaitCaughtUp(timeout);
  }

  private void logAdvice(JobSpec job) {
    long measured = side.lateness().total();
    if (measured > adviceLogged) {
      adviceLogged = measured;
      LOG.info(
          "lateness advice job=[{}]: {}",
          job.name(),
          LatenessAdvice.of(side, job.allowedLateness()).text());
    }
  }

  private synchronized Admin admin() {
    if (admin == null) {
      admin = Admin.create(kafka.adminConfig());
    }
    return admin;
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
    consumer.close();
    synchronized (this) {
      if (admin != null) {
        admin.close(Duration.ofSeconds(5));
      }
    }
  }
}

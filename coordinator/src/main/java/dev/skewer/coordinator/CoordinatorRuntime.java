package dev.skewer.coordinator;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.coordinator.http.ApiVerticle;
import dev.skewer.coordinator.query.QuerySettings;
import dev.skewer.coordinator.query.QuerySide;
import dev.skewer.coordinator.query.ResultHandoff;
import dev.skewer.coordinator.stream.CoordinatorTopicFacts;
import dev.skewer.coordinator.stream.CoordinatorVerticle;
import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.frontier.Frontier;
import dev.skewer.core.frontier.HazelcastFrontier;
import dev.skewer.core.health.Readiness;
import dev.skewer.core.job.JobNames;
import dev.skewer.stage.StageMeters;
import dev.skewer.stage.StageServices;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.time.Clock;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One coordinator: its own Vert.x instance with the merge verticle and the HTTP API deployed, and
 * its query side (the view of the results topic every query, top-K included, answers from).
 */
public final class CoordinatorRuntime implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorRuntime.class);

  private final Vertx vertx;
  private final CoordinatorVerticle merge;
  private final ApiVerticle api;
  private final CoordinatorSettings settings;
  private final QuerySide query;
  private final StageMeters meters;

  private CoordinatorRuntime(
      Vertx vertx,
      CoordinatorVerticle merge,
      ApiVerticle api,
      CoordinatorSettings settings,
      QuerySide query,
      StageMeters meters) {
    this.vertx = vertx;
    this.merge = merge;
    this.api = api;
    this.settings = settings;
    this.query = query;
    this.meters = meters;
  }

  /** Starts a coordinator and waits until it has subscribed and its HTTP port is bound. */
  public static CoordinatorRuntime start(
      CoordinatorSettings settings,
      HazelcastInstance hazelcast,
      MeterRegistry registry,
      Clock clock,
      CheckpointStore checkpoints)
      throws Exception {
    return start(settings, QuerySettings.defaults(), hazelcast, registry, clock, checkpoints);
  }

  /** As above, with the query side's settings (view bound, API token, CORS origin). */
  public static CoordinatorRuntime start(
      CoordinatorSettings settings,
      QuerySettings querySettings,
      HazelcastInstance hazelcast,
      MeterRegistry registry,
      Clock clock,
      CheckpointStore checkpoints)
      throws Exception {
    return start(
        settings,
        querySettings,
        hazelcast,
        registry,
        clock,
        checkpoints,
        (CoordinatorTopicFacts) null,
        newVertx());
  }

  /**
   * A coordinator's Vert.x instance (two event loops, four workers). It needs neither the broker
   * nor a Hazelcast member, so {@code skewer coordinator} makes it while its member joins.
   */
  public static Vertx newVertx() {
    return Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2).setWorkerPoolSize(4));
  }

  /**
   * As above, on {@code vertx} ({@link #newVertx}; the runtime owns it from here on, and closes it
   * if the start fails) and from {@code facts} read beforehand ({@link CoordinatorTopicFacts#read},
   * e.g. while its Hazelcast member joined; null: read as it starts).
   */
  public static CoordinatorRuntime start(
      CoordinatorSettings settings,
      QuerySettings querySettings,
      HazelcastInstance hazelcast,
      MeterRegistry registry,
      Clock clock,
      CheckpointStore checkpoints,
      CoordinatorTopicFacts facts,
      Vertx vertx)
      throws Exception {
    Frontier frontier =
        hazelcast == null
            ? Frontier.none()
            : HazelcastFrontier.forJob(hazelcast, JobNames.of(settings.job()));
    return start(
        settings, querySettings, hazelcast, registry, clock, checkpoints, frontier, facts, vertx);
  }

  /**
   * Starts a coordinator publishing the global watermarks for the nodes through {@code frontier}.
   */
  public static CoordinatorRuntime start(
      CoordinatorSettings settings,
      QuerySettings querySettings,
      HazelcastInstance hazelcast,
      MeterRegistry registry,
      Clock clock,
      CheckpointStore checkpoints,
      Frontier frontier)
      throws Exception {
    return start(
        settings,
        querySettings,
        hazelcast,
        registry,
        clock,
        checkpoints,
        frontier,
        null,
        newVertx());
  }

  private static CoordinatorRuntime start(
      CoordinatorSettings settings,
      QuerySettings querySettings,
      HazelcastInstance hazelcast,
      MeterRegistry registry,
      Clock clock,
      CheckpointStore checkpoints,
      Frontier frontier,
      CoordinatorTopicFacts facts,
      Vertx vertx)
      throws Exception {
    JobNames names = JobNames.of(settings.job());
    // the query side reads the late topic: results carry the late events it has seen per window
    AtomicReference<QuerySide> querySide = new AtomicReference<>();
    // what this coordinator writes reaches its own view without being parsed back
    ResultHandoff handoff = new ResultHandoff(ResultHandoff.DEFAULT_MAX_BYTES);
    CoordinatorVerticle merge =
        new CoordinatorVerticle(
            settings,
            new StageServices(registry, clock, checkpoints, hazelcast, frontier),
            windowStartMs -> {
              QuerySide q = querySide.get();
              return q == null ? -1 : q.sideOutputs().lateInWindow(windowStartMs);
            },
            handoff,
            facts);
    QuerySide query;
    try {
      query =
          QuerySide.start(
              settings.job(),
              settings.kafka(),
              settings.coordinatorId(),
              querySettings,
              hazelcast,
              clock,
              merge::stageStatus,
              handoff);
    } catch (RuntimeException e) {
      vertx.close().await(10, TimeUnit.SECONDS);
      throw e;
    }
    querySide.set(query);
    ApiVerticle api =
        settings.httpPort() == CoordinatorSettings.NO_HTTP
            ? null
            : new ApiVerticle(
                settings.httpHost(),
                settings.httpPort(),
                querySettings,
                query.service(),
                hazelcast,
                names.hotKeysMap(),
                registry,
                () -> readiness(merge, query),
                merge::hotKeyStatus);
    StageMeters meters = null;
    try {
      // the API comes up while the merge stage subscribes (it answers 503 until both are ready)
      Future<String> merging = vertx.deployVerticle(merge);
      if (api != null) {
        vertx.deployVerticle(api).await(30, TimeUnit.SECONDS);
      }
      merging.await(60, TimeUnit.SECONDS);
      meters =
          StageMeters.bind(
              registry, merge, hazelcast, names, Tags.of("coordinator", settings.coordinatorId()));
    } catch (Exception e) {
      if (meters != null) {
        meters.close();
      }
      query.close();
      vertx.close().await(10, TimeUnit.SECONDS);
      throw e;
    }
    LOG.info(
        "coordinator={} started, HTTP API on port {}",
        settings.coordinatorId(),
        api == null ? "none" : api.actualPort());
    return new CoordinatorRuntime(vertx, merge, api, settings, query, meters);
  }

  /** The query side (results view, side-output counts) of this coordinator. */
  public QuerySide query() {
    return query;
  }

  /** The HTTP port actually bound, or -1 without an HTTP server. */
  public int httpPort() {
    return api == null ? -1 : api.actualPort();
  }

  /** What {@code /health/ready} reports. */
  public Readiness readiness() {
    return readiness(merge, query);
  }

  /**
   * Ready when the merge stage is and the query view has read what the results topic held at start
   * (before that the query API answers 503, so a load balancer should not send it requests).
   */
  private static Readiness readiness(CoordinatorVerticle merge, QuerySide query) {
    Readiness r = merge.readiness();
    if (r.ready() && !query.view().caughtUp()) {
      return Readiness.down(
          "the query view is still reading the results topic ("
              + query.view().records()
              + " results read so far)");
    }
    return r;
  }

  public Set<Integer> ownedPartitions() {
    return merge.ownedPartitions();
  }

  public long sendFailures() {
    return merge.sendFailures();
  }

  @Override
  public void close() {
    query.close();
    try {
      vertx.close().await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.warn("coordinator={} did not close cleanly", settings.coordinatorId(), e);
    }
    meters.close();
  }
}

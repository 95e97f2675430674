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
 * its query side (the view of the results topic every query, top-K included, answers from). Start
 * with {@link #start}, or in two steps: {@link #begin} (Vert.x, before the member exists) then
 * {@link Startup#finish}.
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

  /**
   * Starts a coordinator with the default query settings and waits until it has subscribed and its
   * HTTP port is bound.
   */
  public static CoordinatorRuntime start(
      CoordinatorSettings settings,
      HazelcastInstance hazelcast,
      MeterRegistry registry,
      Clock clock,
      CheckpointStore checkpoints)
      throws Exception {
    return begin(settings, QuerySettings.defaults(), registry)
        .finish(clock, checkpoints, hazelcast, null);
  }

  /**
   * Begins a coordinator's start with what needs neither the broker nor a Hazelcast member: its
   * Vert.x instance (two event loops, four workers). {@code skewer coordinator} begins it while its
   * member joins; {@link Startup#finish} starts the query side, the merge stage and the HTTP API.
   */
  public static Startup begin(
      CoordinatorSettings settings, QuerySettings querySettings, MeterRegistry registry) {
    return new Startup(
        settings,
        querySettings,
        registry,
        Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2).setWorkerPoolSize(4)));
  }

  /**
   * A coordinator begun ({@link #begin}) and not yet started. {@link #close} gives the start up.
   */
  public static final class Startup implements AutoCloseable {
    private final CoordinatorSettings settings;
    private final QuerySettings querySettings;
    private final MeterRegistry registry;
    private final Vertx vertx;

    private Startup(
        CoordinatorSettings settings,
        QuerySettings querySettings,
        MeterRegistry registry,
        Vertx vertx) {
      this.settings = settings;
      this.querySettings = querySettings;
      this.registry = registry;
      this.vertx = vertx;
    }

    /**
     * Starts the coordinator and waits until it has subscribed and its HTTP port is bound,
     * publishing the global watermarks for the nodes through the job's Hazelcast map (none without
     * a member); with {@code facts} read beforehand ({@link CoordinatorTopicFacts#read}, e.g. while
     * its member joined) it asks the broker nothing more first (null: read as it starts). A failed
     * start closes Vert.x.
     */
    public CoordinatorRuntime finish(
        Clock clock,
        CheckpointStore checkpoints,
        HazelcastInstance hazelcast,
        CoordinatorTopicFacts facts)
        throws Exception {
      Frontier frontier =
          hazelcast == null
              ? Frontier.none()
              : HazelcastFrontier.forJob(hazelcast, JobNames.of(settings.job()));
      return finish(clock, checkpoints, hazelcast, frontier, facts);
    }

    /** As above, publishing the global watermarks through {@code frontier}. */
    public CoordinatorRuntime finish(
        Clock clock,
        CheckpointStore checkpoints,
        HazelcastInstance hazelcast,
        Frontier frontier,
        CoordinatorTopicFacts facts)
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
        close();
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
                registry,
                merge,
                hazelcast,
                names,
                Tags.of("coordinator", settings.coordinatorId()));
      } catch (Exception e) {
        if (meters != null) {
          meters.close();
        }
        query.close();
        close();
        throw e;
      }
      LOG.info(
          "coordinator={} started, HTTP API on port {}",
          settings.coordinatorId(),
          api == null ? "none" : api.actualPort());
      return new CoordinatorRuntime(vertx, merge, api, settings, query, meters);
    }

    /** Gives the start up: closes Vert.x. */
    @Override
    public void close() throws Exception {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
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

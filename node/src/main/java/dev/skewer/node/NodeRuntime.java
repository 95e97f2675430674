package dev.skewer.node;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.frontier.Frontier;
import dev.skewer.core.frontier.HazelcastFrontier;
import dev.skewer.core.health.Readiness;
import dev.skewer.core.job.JobNames;
import dev.skewer.node.http.HealthVerticle;
import dev.skewer.node.ingest.NodeTopicFacts;
import dev.skewer.node.ingest.NodeVerticle;
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
 * One node: its own Vert.x instance with the ingest verticle and, when {@link
 * NodeSettings#httpPort()} asks for it, the health and metrics endpoints ({@link HealthVerticle}).
 * The registry gets the JVM's meters, the Kafka clients' ({@code kafka.consumer.*}, {@code
 * kafka.producer.*}) and the Hazelcast member's. Start with {@link #start}, or in two steps: {@link
 * #begin} (Vert.x and the endpoints, before the member exists) then {@link Startup#finish} (the
 * ingest); {@link #close} undeploys (draining the producer) and closes Vert.x.
 */
public final class NodeRuntime implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(NodeRuntime.class);

  private final Vertx vertx;
  private final NodeVerticle ingest;
  private final HealthVerticle http; // null: no endpoints
  private final NodeSettings settings;
  private final StageMeters meters;

  private NodeRuntime(
      Vertx vertx,
      NodeVerticle ingest,
      HealthVerticle http,
      NodeSettings settings,
      StageMeters meters) {
    this.vertx = vertx;
    this.ingest = ingest;
    this.http = http;
    this.settings = settings;
    this.meters = meters;
  }

  /** Starts a node, waits until it has subscribed and its HTTP port (if any) is bound. */
  public static NodeRuntime start(
      NodeSettings settings,
      MeterRegistry registry,
      Clock clock,
      CheckpointStore checkpoints,
      HazelcastInstance hazelcast)
      throws Exception {
    return start(
        settings, registry, clock, checkpoints, hazelcast, frontierOf(settings, hazelcast));
  }

  private static Frontier frontierOf(NodeSettings settings, HazelcastInstance hazelcast) {
    return hazelcast == null
        ? Frontier.none()
        : HazelcastFrontier.forJob(hazelcast, JobNames.of(settings.job()));
  }

  /** Starts a node reading the coordinators' frontier from {@code frontier}. */
  public static NodeRuntime start(
      NodeSettings settings,
      MeterRegistry registry,
      Clock clock,
      CheckpointStore checkpoints,
      HazelcastInstance hazelcast,
      Frontier frontier)
      throws Exception {
    return begin(settings, registry).finish(clock, checkpoints, hazelcast, frontier, null);
  }

  /**
   * Begins a node's start with what needs neither the broker nor a Hazelcast member: its Vert.x
   * instance and, when {@link NodeSettings#httpPort()} asks for them, the health and metrics
   * endpoints, up first so that a probe sees 503 (not a refused connection) while the node starts.
   * {@code skewer node} begins it while its member joins; {@link Startup#finish} deploys the
   * ingest.
   */
  public static Startup begin(NodeSettings settings, MeterRegistry registry) throws Exception {
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(4));
    Startup startup = new Startup(settings, registry, vertx);
    try {
      if (startup.http != null) {
        vertx.deployVerticle(startup.http).await(30, TimeUnit.SECONDS);
      }
    } catch (Exception e) {
      startup.close();
      throw e;
    }
    return startup;
  }

  /**
   * A node begun ({@link #begin}) and not yet consuming: until {@link #finish} has deployed its
   * ingest, {@code /health/ready} answers 503 ("starting"). {@link #close} gives the start up.
   */
  public static final class Startup implements AutoCloseable {
    private final NodeSettings settings;
    private final MeterRegistry registry;
    private final Vertx vertx;
    private final HealthVerticle http; // null: no endpoints
    private final AtomicReference<NodeVerticle> ingest = new AtomicReference<>();

    private Startup(NodeSettings settings, MeterRegistry registry, Vertx vertx) {
      this.settings = settings;
      this.registry = registry;
      this.vertx = vertx;
      this.http =
          settings.httpPort() == NodeSettings.NO_HTTP
              ? null
              : new HealthVerticle(
                  settings.httpHost(), settings.httpPort(), this::readiness, registry);
    }

    /** The HTTP port actually bound, or -1 without endpoints. */
    public int httpPort() {
      return http == null ? -1 : http.actualPort();
    }

    private Readiness readiness() {
      NodeVerticle started = ingest.get();
      return started == null
          ? Readiness.down("starting: joining the cluster, not consuming yet")
          : started.readiness();
    }

    /**
     * Deploys the ingest and waits until it has subscribed, reading the coordinators' frontier from
     * the job's Hazelcast map (none without a member); with {@code facts} read beforehand ({@link
     * NodeTopicFacts#read}) it asks the broker nothing more first. A failed start closes Vert.x.
     */
    public NodeRuntime finish(
        Clock clock, CheckpointStore checkpoints, HazelcastInstance hazelcast, NodeTopicFacts facts)
        throws Exception {
      return finish(clock, checkpoints, hazelcast, frontierOf(settings, hazelcast), facts);
    }

    private NodeRuntime finish(
        Clock clock,
        CheckpointStore checkpoints,
        HazelcastInstance hazelcast,
        Frontier frontier,
        NodeTopicFacts facts)
        throws Exception {
      NodeVerticle node =
          new NodeVerticle(
              settings,
              new StageServices(registry, clock, checkpoints, hazelcast, frontier),
              facts);
      ingest.set(node);
      StageMeters meters = null;
      try {
        vertx.deployVerticle(node).await(60, TimeUnit.SECONDS);
        meters =
            StageMeters.bind(
                registry,
                node,
                hazelcast,
                JobNames.of(settings.job()),
                Tags.of("node", settings.nodeId()));
      } catch (Exception e) {
        if (meters != null) {
          meters.close();
        }
        close();
        throw e;
      }
      LOG.info(
          "node={} started{}",
          settings.nodeId(),
          http == null ? "" : ", health and metrics on port " + http.actualPort());
      return new NodeRuntime(vertx, node, http, settings, meters);
    }

    /** Gives the start up: closes Vert.x (and the endpoints with it). */
    @Override
    public void close() throws Exception {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  public Set<Integer> ownedPartitions() {
    return ingest.ownedPartitions();
  }

  public long sendFailures() {
    return ingest.sendFailures();
  }

  /** Whether the node is restored and consuming (for {@code /health/ready}). */
  public Readiness readiness() {
    return ingest.readiness();
  }

  /** The HTTP port actually bound, or -1 without endpoints. */
  public int httpPort() {
    return http == null ? -1 : http.actualPort();
  }

  public Vertx vertx() {
    return vertx;
  }

  @Override
  public void close() {
    try {
      Future<Void> closed = vertx.close();
      closed.await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.warn("node={} did not close cleanly", settings.nodeId(), e);
    }
    meters.close();
  }
}

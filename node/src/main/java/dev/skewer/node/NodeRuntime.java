package dev.skewer.node;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.frontier.Frontier;
import dev.skewer.core.frontier.HazelcastFrontier;
import dev.skewer.core.health.Readiness;
import dev.skewer.core.job.JobNames;
import dev.skewer.node.http.HealthVerticle;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node: its own Vert.x instance with the ingest verticle and, when {@link
 * NodeSettings#httpPort()} asks for it, the health and metrics endpoints ({@link HealthVerticle}).
 * The registry gets the JVM's meters, the Kafka clients' ({@code kafka.consumer.*}, {@code
 * kafka.producer.*}) and the Hazelcast member's. Start with {@link #start}; {@link #close}
 * undeploys (draining the producer) and closes Vert.x.
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
    Frontier frontier =
        hazelcast == null
            ? Frontier.none()
            : HazelcastFrontier.forJob(hazelcast, JobNames.of(settings.job()));
    return start(settings, registry, clock, checkpoints, hazelcast, frontier);
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
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(4));
    NodeVerticle ingest =
        new NodeVerticle(
            settings, new StageServices(registry, clock, checkpoints, hazelcast, frontier));
    HealthVerticle http =
        settings.httpPort() == NodeSettings.NO_HTTP
            ? null
            : new HealthVerticle(
                settings.httpHost(), settings.httpPort(), ingest::readiness, registry);
    StageMeters meters = null;
    try {
      if (http != null) {
        // up first, so a probe sees 503 (not a refused connection) while the node starts
        vertx.deployVerticle(http).await(30, TimeUnit.SECONDS);
      }
      vertx.deployVerticle(ingest).await(60, TimeUnit.SECONDS);
      meters =
          StageMeters.bind(
              registry,
              ingest,
              hazelcast,
              JobNames.of(settings.job()),
              Tags.of("node", settings.nodeId()));
    } catch (Exception e) {
      if (meters != null) {
        meters.close();
      }
      vertx.close().await(10, TimeUnit.SECONDS);
      throw e;
    }
    LOG.info(
        "node={} started{}",
        settings.nodeId(),
        http == null ? "" : ", health and metrics on port " + http.actualPort());
    return new NodeRuntime(vertx, ingest, http, settings, meters);
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

package dev.skewer.node;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.frontier.Frontier;
import dev.skewer.core.frontier.HazelcastFrontier;
import dev.skewer.node.ingest.NodeVerticle;
import dev.skewer.stage.Readiness;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.time.Clock;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node: its own Vert.x instance with the ingest verticle deployed. Start with {@link #start};
 * {@link #close} undeploys (draining the producer) and closes Vert.x.
 */
public final class NodeRuntime implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(NodeRuntime.class);

  private final Vertx vertx;
  private final NodeVerticle ingest;
  private final NodeSettings settings;

  private NodeRuntime(Vertx vertx, NodeVerticle ingest, NodeSettings settings) {
    this.vertx = vertx;
    this.ingest = ingest;
    this.settings = settings;
  }

  /**
   * Starts a node and waits until it has subscribed; the coordinators' frontier comes through
   * {@code hazelcast} (without a member, the node judges lateness by its own watermark only).
   */
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
            : HazelcastFrontier.forJob(hazelcast, settings.job().name());
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
        new NodeVerticle(settings, registry, clock, checkpoints, hazelcast, frontier);
    try {
      vertx.deployVerticle(ingest).await(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      vertx.close().await(10, TimeUnit.SECONDS);
      throw e;
    }
    LOG.info("node={} started", settings.nodeId());
    return new NodeRuntime(vertx, ingest, settings);
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
  }
}

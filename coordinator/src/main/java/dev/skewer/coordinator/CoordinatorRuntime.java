package dev.skewer.coordinator;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.coordinator.http.ApiVerticle;
import dev.skewer.coordinator.stream.MergeVerticle;
import dev.skewer.coordinator.topk.HazelcastTopKStore;
import dev.skewer.coordinator.topk.InMemoryTopKStore;
import dev.skewer.coordinator.topk.TopKStore;
import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.health.Readiness;
import dev.skewer.core.job.JobNames;
import dev.skewer.core.metrics.HazelcastMetrics;
import dev.skewer.core.metrics.ProcessMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One coordinator: its own Vert.x instance with the merge verticle and the HTTP API deployed. With
 * a Hazelcast member the top-K index is shared by every coordinator of the cluster; without one it
 * is local.
 */
public final class CoordinatorRuntime implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorRuntime.class);
  private static final long TOP_K_TTL_SECONDS = 3600;

  private final Vertx vertx;
  private final MergeVerticle merge;
  private final ApiVerticle api;
  private final CoordinatorSettings settings;
  private final List<AutoCloseable> meters;

  private CoordinatorRuntime(
      Vertx vertx,
      MergeVerticle merge,
      ApiVerticle api,
      CoordinatorSettings settings,
      List<AutoCloseable> meters) {
    this.vertx = vertx;
    this.merge = merge;
    this.api = api;
    this.settings = settings;
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
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2).setWorkerPoolSize(4));
    JobNames names = JobNames.of(settings.job());
    TopKStore store =
        hazelcast != null
            ? new HazelcastTopKStore(hazelcast, names, TOP_K_TTL_SECONDS)
            : new InMemoryTopKStore(settings.topKWindows());
    MergeVerticle merge =
        new MergeVerticle(settings, registry, clock, store, checkpoints, hazelcast);
    ApiVerticle api =
        settings.httpPort() == CoordinatorSettings.NO_HTTP
            ? null
            : new ApiVerticle(
                settings.httpHost(),
                settings.httpPort(),
                store,
                settings.job().topics().partialsPartitions(),
                hazelcast,
                names.hotKeysMap(),
                registry,
                merge::readiness,
                merge::hotKeyStatus);
    List<AutoCloseable> meters = new ArrayList<>();
    try {
      vertx.deployVerticle(merge).await(60, TimeUnit.SECONDS);
      if (api != null) {
        vertx.deployVerticle(api).await(30, TimeUnit.SECONDS);
      }
      Tags tags = Tags.of("coordinator", settings.coordinatorId());
      meters.add(ProcessMetrics.bindJvm(registry));
      KafkaClientMetrics consumerMetrics = new KafkaClientMetrics(merge.kafkaConsumer(), tags);
      consumerMetrics.bindTo(registry);
      meters.add(consumerMetrics);
      KafkaClientMetrics producerMetrics = new KafkaClientMetrics(merge.kafkaProducer(), tags);
      producerMetrics.bindTo(registry);
      meters.add(producerMetrics);
      if (hazelcast != null) {
        HazelcastMetrics.bind(registry, hazelcast, names, tags);
      }
    } catch (Exception e) {
      closeAll(meters);
      vertx.close().await(10, TimeUnit.SECONDS);
      throw e;
    }
    LOG.info(
        "coordinator={} started, HTTP API on port {}",
        settings.coordinatorId(),
        api == null ? "none" : api.actualPort());
    return new CoordinatorRuntime(vertx, merge, api, settings, meters);
  }

  /** The HTTP port actually bound, or -1 without an HTTP server. */
  public int httpPort() {
    return api == null ? -1 : api.actualPort();
  }

  /** What {@code /health/ready} reports. */
  public Readiness readiness() {
    return merge.readiness();
  }

  public Set<Integer> ownedPartitions() {
    return merge.ownedPartitions();
  }

  public long resultsWritten() {
    return merge.resultsWritten();
  }

  public long sendFailures() {
    return merge.sendFailures();
  }

  @Override
  public void close() {
    try {
      vertx.close().await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.warn("coordinator={} did not close cleanly", settings.coordinatorId(), e);
    }
    closeAll(meters);
  }

  private static void closeAll(List<AutoCloseable> meters) {
    for (AutoCloseable m : meters) {
      try {
        m.close();
      } catch (Exception e) {
        LOG.debug("closing meters failed", e);
      }
    }
  }
}

package dev.skewer.node.ingest;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.hotkey.HotKeyReport;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.TopicProvisioner;
import dev.skewer.node.NodeSettings;
import dev.skewer.node.hotkey.HotKeyCandidate;
import dev.skewer.stage.KafkaStageClients;
import dev.skewer.stage.PartitionRuntime;
import dev.skewer.stage.Readiness;
import dev.skewer.stage.StageSettings;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node: the partition runtime over the events topic with one {@link SourcePartitionTask} per
 * owned partition, plus what only a node does — publishing each partition's event rate and
 * candidate hot keys to Hazelcast once a second, for the coordinators' fanout policy.
 */
public final class NodeVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(NodeVerticle.class);
  private static final long REPORT_INTERVAL_MS = 1_000;
  private static final long GAUGE_INTERVAL_MS = 1_000;

  private final NodeSettings settings;
  private final MeterRegistry registry;
  private final Clock clock;
  private final CheckpointStore checkpoints;
  private final HazelcastInstance hazelcast; // null: no hot-key reports
  private final AtomicLong openKeySlices = new AtomicLong();
  private final AtomicLong watermarkLagMs = new AtomicLong();
  private PartitionRuntime<SourcePartitionTask> runtime;
  private long reportTimer = -1;
  private long gaugeTimer = -1;

  public NodeVerticle(
      NodeSettings settings,
      MeterRegistry registry,
      Clock clock,
      CheckpointStore checkpoints,
      HazelcastInstance hazelcast) {
    this.settings = settings;
    this.registry = registry;
    this.clock = clock;
    this.checkpoints = checkpoints;
    this.hazelcast = hazelcast;
  }

  @Override
  public Future<?> start() {
    JobSpec job = settings.job();
    String node = settings.nodeId();
    Gauge.builder(NodeMetrics.OPEN_KEY_SLICES, openKeySlices, AtomicLong::get)
        .tag("node", node)
        .register(registry);
    Gauge.builder(NodeMetrics.WATERMARK_LAG, watermarkLagMs, AtomicLong::get)
        .tag("node", node)
        .baseUnit("milliseconds")
        .register(registry);
    return vertx
        .executeBlocking(() -> partitionsOf(job.topics().partials()))
        .compose(
            partialsPartitions -> {
              SourceTasks tasks =
                  new SourceTasks(job, settings.kafka(), partialsPartitions, registry, node, clock);
              StageSettings stage =
                  new StageSettings(
                      "node",
                      node,
                      job.topics().events(),
                      "node/" + job.name() + "/" + job.topics().events() + "/",
                      "latest"
                          .equals(
                              settings
                                  .kafka()
                                  .clientProperties()
                                  .get(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG)),
                      settings.maxPendingRecords(),
                      settings.tickInterval(),
                      settings.checkpointInterval(),
                      StageSettings.DEFAULT_POLL_TIMEOUT,
                      StageSettings.DEFAULT_REVOKE_TIMEOUT,
                      job.guarantee());
              runtime =
                  new PartitionRuntime<>(
                      vertx,
                      stage,
                      new KafkaStageClients(
                          settings.kafka(),
                          settings.groupId(),
                          "skewer-" + node + "-events",
                          "skewer-" + node + "-partials",
                          Map.of(
                              ConsumerConfig.FETCH_MIN_BYTES_CONFIG, "65536",
                              ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "50",
                              ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "4194304")),
                      tasks,
                      checkpoints,
                      registry,
                      clock);
              LOG.info(
                  "node={} group={} partials partitions={}",
                  node,
                  settings.groupId(),
                  partialsPartitions);
              return runtime.start();
            })
        .onSuccess(
            v -> {
              gaugeTimer = vertx.setPeriodic(GAUGE_INTERVAL_MS, t -> updateGauges());
              if (hazelcast != null) {
                reportTimer = vertx.setPeriodic(REPORT_INTERVAL_MS, t -> reportHotKeys());
              }
            });
  }

  private int partitionsOf(String topic) {
    return TopicProvisioner.partitionCount(settings.kafka(), topic, Duration.ofSeconds(30));
  }

  private void updateGauges() {
    long[] keySlices = {0};
    long[] minWatermark = {Long.MAX_VALUE};
    runtime.forEachActive(
        (p, task) -> {
          keySlices[0] += task.aggregator().openKeySlices();
          long wm = task.aggregator().watermarkMs();
          if (!task.idle() && wm != Long.MIN_VALUE) {
            minWatermark[0] = Math.min(minWatermark[0], wm);
          }
        });
    openKeySlices.set(keySlices[0]);
    watermarkLagMs.set(
        minWatermark[0] == Long.MAX_VALUE ? 0 : Math.max(0, clock.millis() - minWatermark[0]));
  }

  /**
   * Publishes each owned partition's event rate and candidate hot keys (the fast half of hot-key
   * detection) for the coordinators' fanout policy; entries expire if the node dies.
   */
  private void reportHotKeys() {
    long nowMs = clock.millis();
    Map<String, byte[]> reports = new HashMap<>();
    runtime.forEachActive(
        (p, task) -> {
          Map<String, Double> candidates = new HashMap<>();
          for (HotKeyCandidate c : task.detector().candidates(nowMs)) {
            candidates.put(c.key(), c.eventsPerSecond());
          }
          reports.put(
              Integer.toString(p),
              new HotKeyReport(p, nowMs, task.detector().rate(nowMs), candidates).encode());
        });
    if (reports.isEmpty()) {
      return;
    }
    vertx
        .executeBlocking(
            () -> {
              IMap<String, byte[]> map = hazelcast.getMap(HotKeyReport.MAP_NAME);
              reports.forEach((k, v) -> map.set(k, v, 10, TimeUnit.SECONDS));
              return null;
            },
            false)
        .onFailure(e -> LOG.debug("node={} hot-key report failed", settings.nodeId(), e));
  }

  /** Source partitions this node owns and consumes (thread-safe). */
  public Set<Integer> ownedPartitions() {
    return runtime == null ? Set.of() : runtime.ownedPartitions();
  }

  /** Records that could not be sent, ever (thread-safe). */
  public long sendFailures() {
    return runtime == null ? 0 : runtime.sendFailures();
  }

  /** Whether the node is restored and consuming (thread-safe). */
  public Readiness readiness() {
    return runtime == null ? Readiness.down("starting") : runtime.readiness();
  }

  @Override
  public Future<?> stop() {
    if (reportTimer >= 0) {
      vertx.cancelTimer(reportTimer);
    }
    if (gaugeTimer >= 0) {
      vertx.cancelTimer(gaugeTimer);
    }
    return runtime == null ? Future.succeededFuture() : runtime.stop();
  }
}

package dev.skewer.node.ingest;

import com.hazelcast.map.IMap;
import dev.skewer.core.hotkey.HotKeyReport;
import dev.skewer.core.job.JobNames;
import dev.skewer.core.job.JobSpec;
import dev.skewer.node.NodeSettings;
import dev.skewer.node.hotkey.HotKeyCandidate;
import dev.skewer.stage.PartitionRuntime;
import dev.skewer.stage.StageServices;
import dev.skewer.stage.StageSettings;
import dev.skewer.stage.StageVerticle;
import io.vertx.core.Future;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node: the partition runtime over the events topic with one {@link SourcePartitionTask} per
 * owned partition, plus what only a node does — publishing each partition's event rate and
 * candidate hot keys to Hazelcast twice a second, for the coordinators' fanout policy.
 */
public final class NodeVerticle extends StageVerticle<SourcePartitionTask> {

  /**
   * The events consumer's fetch settings unless the user's properties set them: up to 64 KiB per
   * fetch (waiting at most 50 ms for them) and up to 4 MiB per partition.
   */
  public static final Map<String, Object> EVENTS_CONSUMER_DEFAULTS =
      Map.of(
          ConsumerConfig.FETCH_MIN_BYTES_CONFIG, "65536",
          ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "50",
          ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "4194304");

  private static final Logger LOG = LoggerFactory.getLogger(NodeVerticle.class);
  private static final long REPORT_INTERVAL_MS = 500;
  private static final long GAUGE_INTERVAL_MS = 1_000;
  private static final long FRONTIER_INTERVAL_MS = 500;
  private static final long LIMITS_INTERVAL_MS = 60_000;

  private final NodeSettings settings;
  private final NodeTopicFacts knownFacts; // null: read as the node starts
  private final AtomicLong openKeySlices = new AtomicLong();
  private SourceTasks tasks;

  public NodeVerticle(NodeSettings settings, StageServices services) {
    this(settings, services, null);
  }

  /**
   * A node that starts from {@code facts} read beforehand ({@code skewer node} reads them while its
   * Hazelcast member joins); null: it reads them itself as it starts.
   */
  public NodeVerticle(NodeSettings settings, StageServices services, NodeTopicFacts facts) {
    super(services);
    this.settings = settings;
    this.knownFacts = facts;
  }

  @Override
  public Future<?> start() {
    JobSpec job = settings.job();
    String node = settings.nodeId();
    registerGauges(
        NodeMetrics.OPEN_KEY_SLICES, openKeySlices, NodeMetrics.WATERMARK_LAG, "node", node);
    Future<NodeTopicFacts> facts =
        knownFacts != null
            ? Future.succeededFuture(knownFacts)
            : vertx.executeBlocking(() -> NodeTopicFacts.read(settings));
    return facts
        .compose(
            known -> {
              int partialsPartitions = known.partialsPartitions();
              tasks =
                  new SourceTasks(job, settings.kafka(), partialsPartitions, registry, node, clock);
              applySideLimits(new int[] {known.dlqRecordLimit(), known.lateRecordLimit()});
              StageSettings stage =
                  StageSettings.forJob(
                      "node",
                      node,
                      job,
                      job.topics().events(),
                      "latest"
                          .equals(
                              settings
                                  .kafka()
                                  .clientProperties()
                                  .get(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG)),
                      settings.maxPendingRecords(),
                      settings.tickInterval(),
                      settings.checkpointInterval());
              PartitionRuntime<SourcePartitionTask> runtime =
                  new PartitionRuntime<>(
                      vertx,
                      stage,
                      clients(
                          settings.kafka(),
                          settings.groupId(),
                          node,
                          "events",
                          "partials",
                          EVENTS_CONSUMER_DEFAULTS),
                      tasks,
                      checkpoints,
                      registry,
                      clock);
              LOG.info(
                  "node={} group={} partials partitions={}",
                  node,
                  settings.groupId(),
                  partialsPartitions);
              return startRuntime(runtime);
            })
        .onSuccess(
            v -> {
              every(GAUGE_INTERVAL_MS, this::updateGauges);
              every(FRONTIER_INTERVAL_MS, this::readFrontier);
              every(LIMITS_INTERVAL_MS, this::refreshSideLimits);
              if (hazelcast != null) {
                // its rhythm matters most on the busiest node, whose timers wait behind batches
                everyEvenWhenBusy(REPORT_INTERVAL_MS, this::reportHotKeys);
              }
            });
  }

  private void applySideLimits(int[] limits) {
    tasks.sideOutputs().limits(limits[0], limits[1]);
  }

  /** Re-reads the side topics' limits (a changed topic configuration takes effect here). */
  private void refreshSideLimits() {
    offLoopOnce(
        "side limits",
        () -> NodeTopicFacts.readSideLimits(settings),
        ar -> {
          if (ar.succeeded()) {
            applySideLimits(ar.result());
          } else {
            LOG.warn(
                "node={} cannot read the side topics' limits: {}", settings.nodeId(), ar.cause());
          }
        });
  }

  /** Reads the coordinators' frontier off the event loop; tasks adopt it on their next tick. */
  private void readFrontier() {
    int partials = settings.job().topics().partialsPartitions();
    offLoopOnce(
        "frontier",
        () -> frontier.frontierMs(partials),
        ar -> {
          if (ar.succeeded()) {
            tasks.frontierMs(ar.result());
          } else {
            LOG.debug("node={} frontier read failed", settings.nodeId(), ar.cause());
          }
        });
  }

  private void updateGauges() {
    long[] keySlices = {0};
    long[] minWatermark = {Long.MAX_VALUE};
    forEachTask(
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
    forEachTask(
        (p, task) -> {
          Map<String, Double> candidates = new HashMap<>();
          List<HotKeyCandidate> found = task.detector().candidates(nowMs);
          for (HotKeyCandidate c : found) {
            candidates.put(c.key(), c.eventsPerSecond());
          }
          double rate = task.detector().rate(nowMs);
          reports.put(Integer.toString(p), new HotKeyReport(p, nowMs, rate, candidates).encode());
          if (LOG.isDebugEnabled() && !found.isEmpty()) {
            LOG.debug(
                "node={} hot-key report partition={} rate={}/s candidates={} top={} at {}/s",
                settings.nodeId(),
                p,
                Math.round(rate),
                found.size(),
                found.get(0).key(),
                Math.round(found.get(0).eventsPerSecond()));
          }
        });
    if (reports.isEmpty()) {
      return;
    }
    offLoopOnce(
        "hot-key reports",
        () -> {
          long startNs = System.nanoTime();
          IMap<String, byte[]> map =
              hazelcast.getMap(JobNames.of(settings.job()).hotKeyReportsMap());
          reports.forEach((k, v) -> map.set(k, v, 10, TimeUnit.SECONDS));
          return (System.nanoTime() - startNs) / 1_000_000;
        },
        ar -> {
          if (ar.failed()) {
            LOG.debug("node={} hot-key report failed", settings.nodeId(), ar.cause());
          } else {
            LOG.debug(
                "node={} hot-key reports of {} partition(s) written in {} ms",
                settings.nodeId(),
                reports.size(),
                ar.result());
          }
        });
  }
}

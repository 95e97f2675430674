package dev.skewer.coordinator.stream;

import dev.skewer.coordinator.CoordinatorMetrics;
import dev.skewer.coordinator.CoordinatorSettings;
import dev.skewer.coordinator.hotkey.FanoutPolicy;
import dev.skewer.coordinator.hotkey.HotKeyDecisions;
import dev.skewer.coordinator.hotkey.HotKeyPublisher;
import dev.skewer.coordinator.hotkey.HotKeyStatus;
import dev.skewer.coordinator.query.ResultHandoff;
import dev.skewer.coordinator.query.StageStatus;
import dev.skewer.core.job.JobNames;
import dev.skewer.core.job.JobSpec;
import dev.skewer.stage.PartitionRuntime;
import dev.skewer.stage.StageServices;
import dev.skewer.stage.StageSettings;
import dev.skewer.stage.StageVerticle;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongUnaryOperator;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A coordinator: the partition runtime over the partials topic with one {@link
 * PartialsPartitionTask} per owned partition, plus what only a coordinator does — once a second,
 * the hot-key fanout policy (nodes' reports from Hazelcast, the table published to the hot-keys
 * topic), and a periodic look at the events topic's partition count.
 */
public final class CoordinatorVerticle extends StageVerticle<PartialsPartitionTask> {

  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorVerticle.class);
  private static final long METADATA_REFRESH_MS = 30_000;
  private static final long HOT_KEY_INTERVAL_MS = 1_000;
  private static final long GAUGE_INTERVAL_MS = 1_000;
  private static final long FRONTIER_INTERVAL_MS = 500;
  private static final long STAGE_STATUS_INTERVAL_MS = 200;

  private final CoordinatorSettings settings;
  private final LongUnaryOperator lateEventsInWindow;
  private final ResultHandoff handoff; // null: no query view in this process
  private final CoordinatorTopicFacts knownFacts; // null: read as the coordinator starts
  private final Map<Integer, Long> publishedFrontier = new HashMap<>();
  private final AtomicLong heldPartials = new AtomicLong();
  private MergeTasks tasks;
  private HotKeyPublisher publisher; // null: hot keys disabled
  private volatile HotKeyDecisions hotKeys; // null: hot keys disabled
  private volatile List<StageStatus> stageStatus = List.of(); // for the query API

  /**
   * @param handoff where every result written goes once acknowledged, for this process's query view
   *     (null: nowhere)
   */
  public CoordinatorVerticle(
      CoordinatorSettings settings,
      StageServices services,
      LongUnaryOperator lateEventsInWindow,
      ResultHandoff handoff) {
    this(settings, services, lateEventsInWindow, handoff, null);
  }

  /**
   * As above, starting from {@code facts} read beforehand ({@code skewer coordinator} reads them
   * while its Hazelcast member joins); null: it reads them itself as it starts.
   */
  public CoordinatorVerticle(
      CoordinatorSettings settings,
      StageServices services,
      LongUnaryOperator lateEventsInWindow,
      ResultHandoff handoff,
      CoordinatorTopicFacts facts) {
    super(services);
    this.lateEventsInWindow = lateEventsInWindow;
    this.handoff = handoff;
    this.settings = settings;
    this.knownFacts = facts;
  }

  @Override
  public Future<?> start() {
    JobSpec job = settings.job();
    String id = settings.coordinatorId();
    registerGauges(
        CoordinatorMetrics.HELD_PARTIALS,
        heldPartials,
        CoordinatorMetrics.WATERMARK_LAG,
        "coordinator",
        id);
    ResultWriter results = new ResultWriter(job, registry, id, lateEventsInWindow);
    if (handoff != null) {
      results.handoff(handoff);
    }
    return vertx
        .executeBlocking(this::prepare)
        .compose(
            sources -> {
              tasks = new MergeTasks(job, settings.kafka(), sources, results, registry, id, clock);
              if (publisher != null) {
                FanoutPolicy.Config policy = settings.hotKeys().policy();
                FanoutPolicy fanout = new FanoutPolicy(policy, sources, clock);
                LOG.info(
                    "coordinator={} hot keys: target per sub-key = max({} events/s, {} of the"
                        + " mean partition rate)",
                    id,
                    policy.minTargetRate(),
                    policy.targetShare());
                results.fanout(fanout);
                hotKeys =
                    new HotKeyDecisions(
                        vertx,
                        id,
                        fanout,
                        publisher,
                        hazelcast,
                        JobNames.of(job).hotKeyReportsMap(),
                        job.topics().partialsPartitions(),
                        this::hotKeyScope);
              }
              PartitionRuntime<PartialsPartitionTask> runtime =
                  new PartitionRuntime<>(
                      vertx,
                      StageSettings.forJob(
                          "coordinator",
                          id,
                          job,
                          job.topics().partials(),
                          false,
                          settings.maxPendingRecords(),
                          StageSettings.DEFAULT_TICK_INTERVAL,
                          settings.checkpointInterval()),
                      clients(
                          settings.kafka(),
                          settings.groupId(),
                          id,
                          "partials",
                          "results",
                          Map.of(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "50")),
                      tasks,
                      checkpoints,
                      registry,
                      clock);
              LOG.info(
                  "coordinator={} group={} source partitions={}", id, settings.groupId(), sources);
              return startRuntime(runtime);
            })
        .onSuccess(
            v -> {
              if (hotKeys != null) {
                hotKeys.listen();
                every(HOT_KEY_INTERVAL_MS, hotKeys::tick);
              }
              every(METADATA_REFRESH_MS, this::refreshSources);
              every(GAUGE_INTERVAL_MS, this::updateGauges);
              every(FRONTIER_INTERVAL_MS, this::publishFrontier);
              every(STAGE_STATUS_INTERVAL_MS, this::updateStageStatus);
            });
  }

  /**
   * Reads the {@link CoordinatorTopicFacts} unless given them; creates the hot-key publisher
   * (blocking). Returns the source partitions.
   */
  private int prepare() {
    CoordinatorTopicFacts facts =
        knownFacts != null ? knownFacts : CoordinatorTopicFacts.read(settings);
    if (settings.hotKeys().enabled()) {
      Map<String, Object> pc = new HashMap<>(settings.kafka().producerConfig());
      pc.put("client.id", "skewer-" + settings.coordinatorId() + "-hotkeys");
      publisher =
          HotKeyPublisher.owning(
              new KafkaProducer<>(pc, new ByteArraySerializer(), new ByteArraySerializer()),
              settings.hotKeys().topic(),
              hazelcast,
              JobNames.of(settings.job()).hotKeysMap());
    }
    return facts.sourcePartitions();
  }

  private void refreshSources() {
    vertx
        .executeBlocking(() -> partitionsOf(settings.kafka(), settings.job().topics().events()))
        .onSuccess(
            n -> {
              if (n > tasks.sourcePartitions()) {
                LOG.info(
                    "coordinator={} source partitions {} -> {}",
                    settings.coordinatorId(),
                    tasks.sourcePartitions(),
                    n);
                tasks.sourcePartitions(n);
                forEachTask((q, task) -> task.merger().resizeSources(n));
              }
            });
  }

  /**
   * Publishes, for each owned partials partition whose frontier moved, the watermark its results
   * are judged late against — for idle nodes to adopt (off the event loop).
   */
  private void publishFrontier() {
    Map<Integer, Long> changed = new HashMap<>();
    forEachTask(
        (q, task) -> {
          long f = task.merger().frontierMs();
          if (f != Long.MIN_VALUE && f > publishedFrontier.getOrDefault(q, Long.MIN_VALUE)) {
            changed.put(q, f);
          }
        });
    if (changed.isEmpty()) {
      return;
    }
    offLoopOnce(
        "frontier",
        () -> {
          changed.forEach(frontier::publish);
          return null;
        },
        ar -> {
          if (ar.succeeded()) {
            changed.forEach((q, f) -> publishedFrontier.merge(q, f, Math::max));
          } else {
            LOG.debug(
                "coordinator={} frontier publication failed", settings.coordinatorId(), ar.cause());
          }
        });
  }

  private void updateGauges() {
    long[] held = {0};
    long[] minGlobal = {Long.MAX_VALUE};
    forEachTask(
        (q, task) -> {
          held[0] += task.merger().heldPartials();
          long g = task.merger().globalWatermarkMs();
          if (g != Long.MIN_VALUE) {
            minGlobal[0] = Math.min(minGlobal[0], g);
          }
        });
    heldPartials.set(held[0]);
    if (minGlobal[0] != Long.MAX_VALUE) {
      watermarkLagMs.set(Math.max(0, clock.millis() - minGlobal[0]));
    }
  }

  /**
   * What a hot-key decision round covers: the partitions owned, at their smallest global watermark.
   */
  private HotKeyDecisions.Scope hotKeyScope() {
    long[] minGlobal = {Long.MAX_VALUE};
    forEachTask(
        (q, task) -> minGlobal[0] = Math.min(minGlobal[0], task.merger().globalWatermarkMs()));
    return new HotKeyDecisions.Scope(
        ownedPartitions(), minGlobal[0] == Long.MAX_VALUE ? Long.MIN_VALUE : minGlobal[0]);
  }

  private void updateStageStatus() {
    List<StageStatus> out = new ArrayList<>();
    long now = clock.millis();
    forEachTask(
        (q, task) ->
            out.add(
                StageStatus.of(
                    q, settings.coordinatorId(), task.epoch(), task.merger(), now, List.of())));
    stageStatus = List.copyOf(out);
  }

  /** Each owned partition's merger status, refreshed every 200 ms (for the query API). */
  public List<StageStatus> stageStatus() {
    return stageStatus;
  }

  /** The hot keys this coordinator decided, with their measured rates (for the HTTP API). */
  public List<HotKeyStatus> hotKeyStatus() {
    HotKeyDecisions h = hotKeys;
    return h == null ? List.of() : h.status();
  }

  @Override
  protected Future<?> stopped() {
    return vertx.executeBlocking(
        () -> {
          HotKeyDecisions h = hotKeys;
          if (h != null) {
            h.close(); // its listener, and the publisher
          } else if (publisher != null) {
            publisher.close();
          }
          return null;
        });
  }
}

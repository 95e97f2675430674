package dev.skewer.coordinator.stream;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.coordinator.CoordinatorMetrics;
import dev.skewer.coordinator.CoordinatorSettings;
import dev.skewer.coordinator.hotkey.FanoutPolicy;
import dev.skewer.coordinator.hotkey.HotKeyPublisher;
import dev.skewer.coordinator.hotkey.HotKeyStatus;
import dev.skewer.coordinator.query.StageStatus;
import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.frontier.Frontier;
import dev.skewer.core.health.Readiness;
import dev.skewer.core.hotkey.HotKeyReport;
import dev.skewer.core.hotkey.HotKeyTable;
import dev.skewer.core.job.JobNames;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.TopicProvisioner;
import dev.skewer.stage.KafkaStageClients;
import dev.skewer.stage.PartitionRuntime;
import dev.skewer.stage.StageSettings;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongUnaryOperator;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A coordinator: the partition runtime over the partials topic with one {@link
 * PartialsPartitionTask} per owned partition, plus what only a coordinator does — once a second,
 * the hot-key fanout policy (nodes' reports from Hazelcast, the table published to the hot-keys
 * topic), and a periodic look at the events topic's partition count.
 */
public final class CoordinatorVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorVerticle.class);
  private static final long METADATA_REFRESH_MS = 30_000;
  private static final long HOT_KEY_INTERVAL_MS = 1_000;
  private static final long GAUGE_INTERVAL_MS = 1_000;
  private static final long FRONTIER_INTERVAL_MS = 500;
  private static final long STAGE_STATUS_INTERVAL_MS = 200;

  private final CoordinatorSettings settings;
  private final MeterRegistry registry;
  private final Clock clock;
  private final LongUnaryOperator lateEventsInWindow;
  private final CheckpointStore checkpoints;
  private final HazelcastInstance hazelcast; // null: no node reports
  private final Frontier frontier;
  private final Map<Integer, Long> publishedFrontier = new HashMap<>();
  private boolean publishingFrontier;
  private final AtomicLong heldPartials = new AtomicLong();
  private final AtomicLong watermarkLagMs = new AtomicLong();
  private PartitionRuntime<PartialsPartitionTask> runtime;
  private MergeTasks tasks;
  private FanoutPolicy fanout; // null: hot keys disabled
  private HotKeyPublisher publisher;
  private volatile List<HotKeyStatus> hotKeyStatus = List.of();
  private volatile List<StageStatus> stageStatus = List.of(); // for the query API
  private boolean publishing;
  private long metadataTimer = -1;
  private long hotKeyTimer = -1;
  private long gaugeTimer = -1;
  private long frontierTimer = -1;
  private long stageTimer = -1;

  public CoordinatorVerticle(
      CoordinatorSettings settings,
      MeterRegistry registry,
      Clock clock,
      CheckpointStore checkpoints,
      HazelcastInstance hazelcast,
      Frontier frontier,
      LongUnaryOperator lateEventsInWindow) {
    this.lateEventsInWindow = lateEventsInWindow;
    this.settings = settings;
    this.frontier = frontier;
    this.registry = registry;
    this.clock = clock;
    this.checkpoints = checkpoints;
    this.hazelcast = hazelcast;
  }

  @Override
  public Future<?> start() {
    JobSpec job = settings.job();
    String id = settings.coordinatorId();
    Gauge.builder(CoordinatorMetrics.HELD_PARTIALS, heldPartials, AtomicLong::get)
        .tag("coordinator", id)
        .register(registry);
    Gauge.builder(CoordinatorMetrics.WATERMARK_LAG, watermarkLagMs, ms -> ms.get() / 1000.0)
        .tag("coordinator", id)
        .baseUnit("seconds")
        .register(registry);
    ResultWriter results = new ResultWriter(job, registry, id, lateEventsInWindow);
    return vertx
        .executeBlocking(this::prepare)
        .compose(
            sources -> {
              tasks = new MergeTasks(job, settings.kafka(), sources, results, registry, id, clock);
              if (publisher != null) {
                fanout = new FanoutPolicy(settings.hotKeys().policy(), sources, clock);
                results.fanout(fanout);
              }
              runtime =
                  new PartitionRuntime<>(
                      vertx,
                      new StageSettings(
                          "coordinator",
                          id,
                          job.topics().partials(),
                          "coordinator/" + job.name() + "/" + job.topics().partials() + "/",
                          false,
                          settings.maxPendingRecords(),
                          StageSettings.DEFAULT_TICK_INTERVAL,
                          settings.checkpointInterval(),
                          StageSettings.DEFAULT_POLL_TIMEOUT,
                          StageSettings.DEFAULT_REVOKE_TIMEOUT,
                          job.guarantee()),
                      new KafkaStageClients(
                          settings.kafka(),
                          settings.groupId(),
                          "skewer-" + id + "-partials",
                          "skewer-" + id + "-results",
                          Map.of(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "50")),
                      tasks,
                      checkpoints,
                      registry,
                      clock);
              LOG.info(
                  "coordinator={} group={} source partitions={}", id, settings.groupId(), sources);
              return runtime.start();
            })
        .onSuccess(
            v -> {
              if (fanout != null) {
                hotKeyTimer = vertx.setPeriodic(HOT_KEY_INTERVAL_MS, t -> hotKeyTick());
              }
              metadataTimer = vertx.setPeriodic(METADATA_REFRESH_MS, t -> refreshSources());
              gaugeTimer = vertx.setPeriodic(GAUGE_INTERVAL_MS, t -> updateGauges());
              frontierTimer = vertx.setPeriodic(FRONTIER_INTERVAL_MS, t -> publishFrontier());
              stageTimer = vertx.setPeriodic(STAGE_STATUS_INTERVAL_MS, t -> updateStageStatus());
            });
  }

  /** Reads the events topic's partition count; creates the hot-key publisher (blocking). */
  private int prepare() throws Exception {
    JobSpec job = settings.job();
    int sources = partitionsOf(job.topics().events());
    if (settings.hotKeys().enabled()) {
      try (Admin admin = Admin.create(settings.kafka().adminConfig())) {
        HotKeyPublisher.ensureTopic(
            admin,
            settings.hotKeys().topic(),
            job.topics().replicationFactor(),
            Duration.ofSeconds(30),
            settings.provision());
      }
      Map<String, Object> pc = new HashMap<>(settings.kafka().producerConfig());
      pc.put("client.id", "skewer-" + settings.coordinatorId() + "-hotkeys");
      publisher =
          HotKeyPublisher.owning(
              new KafkaProducer<>(pc, new ByteArraySerializer(), new ByteArraySerializer()),
              settings.hotKeys().topic(),
              hazelcast,
              JobNames.of(job).hotKeysMap());
    }
    return sources;
  }

  private int partitionsOf(String topic) {
    return TopicProvisioner.partitionCount(settings.kafka(), topic, Duration.ofSeconds(30));
  }

  private void refreshSources() {
    vertx
        .executeBlocking(() -> partitionsOf(settings.job().topics().events()))
        .onSuccess(
            n -> {
              if (n > tasks.sourcePartitions()) {
                LOG.info(
                    "coordinator={} source partitions {} -> {}",
                    settings.coordinatorId(),
                    tasks.sourcePartitions(),
                    n);
                tasks.sourcePartitions(n);
                runtime.forEachActive((q, task) -> task.merger().resizeSources(n));
              }
            });
  }

  /**
   * Publishes, for each owned partials partition whose frontier moved, the watermark its results
   * are judged late against — for idle nodes to adopt (off the event loop).
   */
  private void publishFrontier() {
    if (publishingFrontier) {
      return;
    }
    Map<Integer, Long> changed = new HashMap<>();
    runtime.forEachActive(
        (q, task) -> {
          long f = task.merger().frontierMs();
          if (f != Long.MIN_VALUE && f > publishedFrontier.getOrDefault(q, Long.MIN_VALUE)) {
            changed.put(q, f);
          }
        });
    if (changed.isEmpty()) {
      return;
    }
    publishingFrontier = true;
    vertx
        .executeBlocking(
            () -> {
              changed.forEach(frontier::publish);
              return null;
            },
            false)
        .onComplete(
            ar -> {
              publishingFrontier = false;
              if (ar.succeeded()) {
                changed.forEach((q, f) -> publishedFrontier.merge(q, f, Math::max));
              } else {
                LOG.debug(
                    "coordinator={} frontier publication failed",
                    settings.coordinatorId(),
                    ar.cause());
              }
            });
  }

  private void updateGauges() {
    long[] held = {0};
    long[] minGlobal = {Long.MAX_VALUE};
    runtime.forEachActive(
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
   * Once a second: close the policy's windows up to the global watermark, feed it the nodes'
   * reports for keys this coordinator owns, and publish the table when it changed.
   */
  private void hotKeyTick() {
    Set<Integer> owned = runtime.ownedPartitions();
    if (owned.isEmpty() || publishing) {
      return;
    }
    long[] minGlobal = {Long.MAX_VALUE};
    runtime.forEachActive(
        (q, task) -> minGlobal[0] = Math.min(minGlobal[0], task.merger().globalWatermarkMs()));
    if (minGlobal[0] != Long.MAX_VALUE && minGlobal[0] != Long.MIN_VALUE) {
      fanout.sealWindowsEndingBy(minGlobal[0]);
    }
    publishing = true;
    int partials = settings.job().topics().partialsPartitions();
    vertx
        .executeBlocking(
            () ->
                hazelcast == null
                    ? List.<HotKeyReport>of()
                    : HotKeyReport.decodeAll(
                        hazelcast
                            .<String, byte[]>getMap(JobNames.of(settings.job()).hotKeyReportsMap())
                            .values()),
            false)
        .compose(
            reports -> {
              for (HotKeyReport r : reports) {
                fanout.observePartitionRate(r.partition(), r.eventsPerSecond());
                r.candidates()
                    .forEach(
                        (key, rate) -> {
                          int q =
                              Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8)))
                                  % partials;
                          if (owned.contains(q)) {
                            fanout.observeCandidate(r.partition(), key, rate);
                          }
                        });
              }
              HotKeyTable table = fanout.decide();
              hotKeyStatus = List.copyOf(fanout.status());
              return vertx.executeBlocking(() -> publisher.publish(table), false);
            })
        .onComplete(
            ar -> {
              publishing = false;
              if (ar.failed()) {
                LOG.warn(
                    "coordinator={} hot-key tick failed", settings.coordinatorId(), ar.cause());
              }
            });
  }

  private void updateStageStatus() {
    List<StageStatus> out = new ArrayList<>();
    long now = clock.millis();
    runtime.forEachActive(
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
    return hotKeyStatus;
  }

  /** The stage's Kafka consumer once started (for client metrics), else null. */
  public Consumer<byte[], byte[]> kafkaConsumer() {
    return runtime == null ? null : runtime.consumer();
  }

  /**
   * The stage's shared Kafka producer once started (client metrics); null before, and with
   * exactly_once.
   */
  public Producer<byte[], byte[]> kafkaProducer() {
    return runtime == null ? null : runtime.producer();
  }

  /** Whether the coordinator is restored and consuming (thread-safe). */
  public Readiness readiness() {
    return runtime == null ? Readiness.down("starting") : runtime.readiness();
  }

  /** Partials partitions owned and consuming (thread-safe). */
  public Set<Integer> ownedPartitions() {
    return runtime == null ? Set.of() : runtime.ownedPartitions();
  }

  /** Records that could not be sent, ever (thread-safe). */
  public long sendFailures() {
    return runtime == null ? 0 : runtime.sendFailures();
  }

  @Override
  public Future<?> stop() {
    for (long timer :
        new long[] {metadataTimer, hotKeyTimer, gaugeTimer, frontierTimer, stageTimer}) {
      if (timer >= 0) {
        vertx.cancelTimer(timer);
      }
    }
    Future<Void> stopped = runtime == null ? Future.succeededFuture() : runtime.stop();
    return stopped.eventually(
        () ->
            vertx.executeBlocking(
                () -> {
                  if (publisher != null) {
                    publisher.close();
                  }
                  return null;
                }));
  }
}

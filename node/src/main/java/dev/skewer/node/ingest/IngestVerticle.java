package dev.skewer.node.ingest;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.core.checkpoint.Checkpoint;
import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.event.DecodedEvent;
import dev.skewer.core.event.DlqReason;
import dev.skewer.core.event.EventDecoder;
import dev.skewer.core.health.Readiness;
import dev.skewer.core.hotkey.HotKeyReport;
import dev.skewer.core.job.JobNames;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.window.WindowAssigner;
import dev.skewer.core.wire.WireCodec;
import dev.skewer.node.NodeSettings;
import dev.skewer.node.aggregate.PartitionAggregator;
import dev.skewer.node.hotkey.HotKeyCandidate;
import dev.skewer.node.hotkey.HotKeyDetector;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.kafka.client.consumer.KafkaReadStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes the events topic and drives one {@link PartitionAggregator} per owned source partition.
 *
 * <p>Per poll batch: decode every record; route malformed and future-dated ones to the DLQ (the
 * reason in the {@code skewer.reason} header) and too-late ones to the late topic, both with {@code
 * skewer.source.partition} / {@code skewer.source.offset} headers; fold the rest in; then emit the
 * Partials of the windows the partition's watermark closed, followed by the partition's watermark
 * broadcast to every partials partition (same producer, so on every partials partition the
 * watermark comes after the Partials it covers). A periodic tick marks partitions idle and, when
 * configured, finalizes the open windows of partitions idle for long enough.
 *
 * <p>Back-pressure: while more than {@code maxPendingRecords} produced records await
 * acknowledgement, the verticle does not poll. Producer sends run on an ordered worker so a full
 * producer buffer never blocks the event loop.
 */
public final class IngestVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(IngestVerticle.class);
  private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);
  private static final long REPORT_INTERVAL_MS = 1_000;

  // configuration
  private final NodeSettings settings;
  private final JobSpec job;
  private final MeterRegistry registry;
  private final Clock clock;
  private final WindowAssigner windows;
  private final long delayMs;
  private final long latenessMs;
  private final long idleMs;
  private final long finalizeAfterIdleMs; // -1: never
  private final long maxFutureSkewMs;
  private final CheckpointStore checkpoints;
  private final boolean resetToLatest;
  private final HazelcastInstance hazelcast; // null: no hot-key reports

  // transient state
  private KafkaReadStream<byte[], byte[]> consumer;
  private KafkaProducer<byte[], byte[]> producer;
  private EventDecoder decoder;
  private DecodedEvent event;
  private int partialsPartitions;
  private final AtomicLong pending = new AtomicLong();
  private final AtomicLong sendFailures = new AtomicLong();
  private final java.util.concurrent.atomic.AtomicBoolean lostSend =
      new java.util.concurrent.atomic.AtomicBoolean();
  private final AtomicLong openKeyWindows = new AtomicLong(); // published each tick for gauges
  private final AtomicLong watermarkLagMs = new AtomicLong();
  private final Map<Integer, PartitionState> partitions = new HashMap<>();
  private final Set<Integer> owned = ConcurrentHashMap.newKeySet(); // readable from any thread
  private final Set<Integer> assignedByKafka = new java.util.HashSet<>(); // the group's word
  private long tickTimer = -1;
  // readiness and offset commits (ops): a self-contained piece, see readiness() and commitOffset()
  private static final long READINESS_INTERVAL_MS = 100;
  private long readinessTimer = -1;
  private boolean joined; // the group assigned partitions at least once (possibly none)
  private final AtomicLong failingSends = new AtomicLong(); // failures since the last success
  private volatile Readiness readiness = Readiness.down("starting");
  private long checkpointTimer = -1;
  private long reportTimer = -1;
  private org.apache.kafka.common.Metric connectionCount; // the consumer's, found lazily
  private long lastTickMs = Long.MAX_VALUE; // no pause detected before the first tick
  private boolean stopping;
  private Future<Void> lastSend = Future.succeededFuture();
  private final RateLimitedLog dlqLog = new RateLimitedLog(LOG, 10_000);
  private final RateLimitedLog lateLog = new RateLimitedLog(LOG, 10_000);

  // metrics
  private Counter eventsIn;
  private Counter eventsLate;
  private Counter partialsOut;
  private Counter watermarksOut;
  private Counter restores;
  private Counter sideOutputsSkipped;
  private Timer checkpointDuration;
  private DistributionSummary checkpointSize;
  private final Map<DlqReason, Counter> eventsDlq = new EnumMap<>(DlqReason.class);

  public IngestVerticle(
      NodeSettings settings,
      MeterRegistry registry,
      Clock clock,
      CheckpointStore checkpoints,
      HazelcastInstance hazelcast) {
    this.settings = settings;
    this.hazelcast = hazelcast;
    this.checkpoints = checkpoints;
    this.resetToLatest =
        "latest"
            .equals(
                settings.kafka().clientProperties().get(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG));
    this.job = settings.job();
    this.registry = registry;
    this.clock = clock;
    this.windows = WindowAssigner.of(job.window());
    this.delayMs = job.watermark().delay().toMillis();
    this.latenessMs = job.allowedLateness().toMillis();
    this.idleMs = job.watermark().idle().toMillis();
    Duration finalize = job.watermark().finalizeAfterIdle();
    this.finalizeAfterIdleMs = finalize == null ? -1 : finalize.toMillis();
    this.maxFutureSkewMs = job.watermark().maxFutureSkew().toMillis();
  }

  @Override
  public Future<?> start() {
    decoder = new EventDecoder(job);
    event = DecodedEvent.forJob(job);
    String node = settings.nodeId();
    eventsIn = Counter.builder(NodeMetrics.EVENTS_IN).tag("node", node).register(registry);
    eventsLate = Counter.builder(NodeMetrics.EVENTS_LATE).tag("node", node).register(registry);
    partialsOut = Counter.builder(NodeMetrics.PARTIALS_OUT).tag("node", node).register(registry);
    watermarksOut =
        Counter.builder(NodeMetrics.WATERMARKS_OUT).tag("node", node).register(registry);
    restores = Counter.builder(NodeMetrics.RESTORES).tag("node", node).register(registry);
    sideOutputsSkipped =
        Counter.builder(NodeMetrics.SIDE_OUTPUTS_SKIPPED).tag("node", node).register(registry);
    checkpointDuration =
        Timer.builder(NodeMetrics.CHECKPOINT_DURATION).tag("node", node).register(registry);
    checkpointSize =
        DistributionSummary.builder(NodeMetrics.CHECKPOINT_SIZE)
            .baseUnit("bytes")
            .tag("node", node)
            .register(registry);
    for (DlqReason reason : DlqReason.values()) {
      eventsDlq.put(
          reason,
          Counter.builder(NodeMetrics.EVENTS_DLQ)
              .tag("node", node)
              .tag("reason", reason.code())
              .register(registry));
    }
    Gauge.builder(NodeMetrics.PRODUCER_PENDING, pending, AtomicLong::get)
        .tag("node", node)
        .register(registry);
    Gauge.builder(NodeMetrics.OPEN_KEY_WINDOWS, openKeyWindows, AtomicLong::get)
        .tag("node", node)
        .register(registry);
    Gauge.builder(NodeMetrics.WATERMARK_LAG, watermarkLagMs, ms -> ms.get() / 1000.0)
        .tag("node", node)
        .baseUnit("seconds")
        .register(registry);

    Map<String, Object> consumerConfig =
        new HashMap<>(settings.kafka().consumerConfig(settings.groupId()));
    consumerConfig.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    consumerConfig.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    consumerConfig.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
    consumerConfig.putIfAbsent(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, "65536");
    consumerConfig.putIfAbsent(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "50");
    consumerConfig.putIfAbsent(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "4194304");
    consumerConfig.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "skewer-" + node + "-events");

    return vertx
        .executeBlocking(
            () -> {
              Map<String, Object> producerConfig = new HashMap<>(settings.kafka().producerConfig());
              producerConfig.putIfAbsent("client.id", "skewer-" + node + "-partials");
              KafkaProducer<byte[], byte[]> p =
                  new KafkaProducer<>(
                      producerConfig, new ByteArraySerializer(), new ByteArraySerializer());
              try {
                int q = p.partitionsFor(job.topics().partials()).size();
                return Map.entry(p, q);
              } catch (RuntimeException e) {
                p.close(Duration.ZERO);
                throw e;
              }
            })
        .compose(
            pq -> {
              producer = pq.getKey();
              partialsPartitions = pq.getValue();
              consumer =
                  KafkaReadStream.create(
                      vertx,
                      consumerConfig,
                      new ByteArrayDeserializer(),
                      new ByteArrayDeserializer());
              consumer.partitionsAssignedHandler(this::onAssigned);
              consumer.partitionsRevokedHandler(this::onRevoked);
              consumer.exceptionHandler(
                  e -> {
                    if (e instanceof org.apache.kafka.common.errors.RebalanceInProgressException
                        || e instanceof org.apache.kafka.clients.consumer.CommitFailedException) {
                      // an offset commit raced a rebalance: the next checkpoint commits again
                      LOG.debug("node={} offset commit skipped: {}", node, e.toString());
                    } else {
                      LOG.warn("node={} consumer error", node, e);
                    }
                  });
              return consumer.subscribe(Set.of(job.topics().events()));
            })
        .onSuccess(
            v -> {
              LOG.info(
                  "node={} consuming topic={} group={} partials partitions={}",
                  node,
                  job.topics().events(),
                  settings.groupId(),
                  partialsPartitions);
              tickTimer = vertx.setPeriodic(settings.tickInterval().toMillis(), id -> tick());
              readinessTimer = vertx.setPeriodic(READINESS_INTERVAL_MS, id -> updateReadiness());
              checkpointTimer =
                  vertx.setPeriodic(
                      settings.checkpointInterval().toMillis(), id -> checkpointAll());
              if (hazelcast != null) {
                reportTimer = vertx.setPeriodic(REPORT_INTERVAL_MS, id -> reportHotKeys());
              }
              pollLoop();
            });
  }

  private void pollLoop() {
    if (stopping) {
      return;
    }
    if (pending.get() > settings.maxPendingRecords()) {
      vertx.setTimer(5, id -> pollLoop());
      return;
    }
    consumer
        .poll(POLL_TIMEOUT)
        .onComplete(
            ar -> {
              if (ar.succeeded()) {
                try {
                  process(ar.result());
                } catch (RuntimeException e) {
                  LOG.error("node={} failed to process a batch", settings.nodeId(), e);
                }
              } else if (!stopping) {
                LOG.warn("node={} poll failed", settings.nodeId(), ar.cause());
              }
              if (!stopping) {
                if (ar.failed()) {
                  vertx.setTimer(100, id -> pollLoop());
                } else {
                  pollLoop();
                }
              }
            });
  }

  private void process(ConsumerRecords<byte[], byte[]> records) {
    if (records.isEmpty()) {
      return;
    }
    long nowMs = clock.millis();
    List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>();
    for (TopicPartition tp : records.partitions()) {
      PartitionState ps = partitions.get(tp.partition());
      if (ps == null || !ps.ready) {
        continue; // not (yet) restored: these records are read again after the seek
      }
      for (ConsumerRecord<byte[], byte[]> r : records.records(tp)) {
        if (r.offset() < ps.nextOffset) {
          continue; // before the restored position (fetched before the seek)
        }
        ps.nextOffset = r.offset() + 1;
        processRecord(ps, r, nowMs, ps.alreadyRouted.isEmpty() ? out : dedupe(ps, r.offset(), out));
      }
      ps.lastEventWallMs = nowMs;
      if (ps.idle) {
        ps.idle = false;
        ps.watermarkDirty = true;
      }
      emit(ps, out);
    }
    send(out);
  }

  private void processRecord(
      PartitionState ps,
      ConsumerRecord<byte[], byte[]> r,
      long nowMs,
      List<ProducerRecord<byte[], byte[]>> out) {
    eventsIn.increment();
    DlqReason reason = decoder.decode(r.value(), event);
    if (reason == null && event.eventTimeMs() > nowMs + maxFutureSkewMs) {
      reason = DlqReason.FUTURE_TIME;
    }
    if (reason != null) {
      eventsDlq.get(reason).increment();
      dlqLog.warn(
          nowMs,
          "event to DLQ reason=[{}] topic=[{}] partition=[{}] offset=[{}]",
          reason.code(),
          r.topic(),
          r.partition(),
          r.offset());
      RecordHeaders headers = sourceHeaders(r);
      headers.add(DlqReason.HEADER, reason.code().getBytes(StandardCharsets.UTF_8));
      out.add(new ProducerRecord<>(job.topics().dlq(), null, r.key(), r.value(), headers));
      return;
    }
    PartitionAggregator.Outcome outcome;
    try {
      outcome =
          ps.aggregator.update(
              event.key(),
              event.eventTimeMs(),
              event.numeric(),
              event.distinctItem(),
              event.frequencyItem(),
              event.quantileValue(),
              event.dimensions());
    } catch (IllegalArgumentException refused) {
      // the aggregate refuses a value before changing anything (e.g. a lone surrogate)
      DlqReason invalid = DlqReason.INVALID_VALUE;
      eventsDlq.get(invalid).increment();
      dlqLog.warn(
          nowMs,
          "event to DLQ reason=[{}] topic=[{}] partition=[{}] offset=[{}]: {}",
          invalid.code(),
          r.topic(),
          r.partition(),
          r.offset(),
          refused.getMessage());
      RecordHeaders headers = sourceHeaders(r);
      headers.add(DlqReason.HEADER, invalid.code().getBytes(StandardCharsets.UTF_8));
      out.add(new ProducerRecord<>(job.topics().dlq(), null, r.key(), r.value(), headers));
      return;
    }
    ps.detector.update(event.key(), nowMs);
    if (outcome == PartitionAggregator.Outcome.LATE) {
      eventsLate.increment();
      lateLog.warn(
          nowMs,
          "late event to the late topic topic=[{}] partition=[{}] offset=[{}] eventTimeMs=[{}]"
              + " watermarkMs=[{}]",
          r.topic(),
          r.partition(),
          r.offset(),
          event.eventTimeMs(),
          ps.aggregator.watermarkMs());
      RecordHeaders headers = sourceHeaders(r);
      headers.add(
          "skewer.watermark",
          Long.toString(ps.aggregator.watermarkMs()).getBytes(StandardCharsets.UTF_8));
      out.add(new ProducerRecord<>(job.topics().late(), null, r.key(), r.value(), headers));
    }
  }

  private static RecordHeaders sourceHeaders(ConsumerRecord<byte[], byte[]> r) {
    RecordHeaders headers = new RecordHeaders();
    headers.add("skewer.source.topic", r.topic().getBytes(StandardCharsets.UTF_8));
    headers.add(
        "skewer.source.partition",
        Integer.toString(r.partition()).getBytes(StandardCharsets.UTF_8));
    headers.add("skewer.source.offset", Long.toString(r.offset()).getBytes(StandardCharsets.UTF_8));
    return headers;
  }

  /**
   * During a replay after a failover: a sink that drops the late/DLQ record of an offset the
   * previous owner already routed (found by {@link SideOutputScanner}).
   */
  private List<ProducerRecord<byte[], byte[]>> dedupe(
      PartitionState ps, long offset, List<ProducerRecord<byte[], byte[]>> out) {
    if (!ps.alreadyRouted.remove(offset)) {
      return out;
    }
    sideOutputsSkipped.increment();
    return new ArrayList<>(1); // discarded
  }

  /** Emits closed windows' Partials, then the watermark if anything changed. */
  private void emit(PartitionState ps, List<ProducerRecord<byte[], byte[]>> out) {
    String partials = job.topics().partials();
    int emitted =
        ps.aggregator.emit(
            p ->
                out.add(
                    new ProducerRecord<>(
                        partials, p.key().getBytes(StandardCharsets.UTF_8), WireCodec.encode(p))));
    if (emitted > 0) {
      partialsOut.increment(emitted);
    }
    long wm = ps.aggregator.watermarkMs();
    if (emitted > 0 || wm != ps.broadcastWatermarkMs || ps.watermarkDirty) {
      ps.broadcastWatermarkMs = wm;
      ps.watermarkDirty = false;
      byte[] bytes = WireCodec.encode(ps.aggregator.watermark(ps.idle));
      for (int q = 0; q < partialsPartitions; q++) {
        out.add(new ProducerRecord<>(partials, q, null, bytes));
      }
      watermarksOut.increment(partialsPartitions);
    }
  }

  private void tick() {
    if (stopping || partitions.isEmpty()) {
      return;
    }
    long nowMs = clock.millis();
    long sinceLastTick = nowMs - lastTickMs;
    lastTickMs = nowMs;
    if (sinceLastTick > Math.max(2_000, 5 * settings.tickInterval().toMillis())) {
      // this process was not running (a long GC pause, SIGSTOP): the silence it sees is its own,
      // not its partitions'; never finalize windows because of it
      for (PartitionState ps : partitions.values()) {
        ps.lastEventWallMs = nowMs;
      }
      return;
    }
    if (!brokerReachable()) {
      // a broker outage is not silence: without a connection no partition is idle, and none is
      // finalized as if its input had ended
      for (PartitionState ps : partitions.values()) {
        ps.lastEventWallMs = nowMs;
      }
      return;
    }
    List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>();
    long keyWindows = 0;
    long minWatermark = Long.MAX_VALUE;
    for (PartitionState ps : partitions.values()) {
      if (!ps.ready) {
        continue;
      }
      keyWindows += ps.aggregator.openKeyWindows();
      if (!ps.idle && ps.aggregator.watermarkMs() != Long.MIN_VALUE) {
        minWatermark = Math.min(minWatermark, ps.aggregator.watermarkMs());
      }
      if (lagOf(ps) > 0) {
        // records are waiting on the broker: the partition is behind, not silent
        ps.lastEventWallMs = nowMs;
      }
      long silentMs = nowMs - ps.lastEventWallMs;
      if (!ps.idle && silentMs >= idleMs) {
        ps.idle = true;
        ps.watermarkDirty = true;
      }
      if (finalizeAfterIdleMs >= 0
          && silentMs >= finalizeAfterIdleMs
          && ps.aggregator.openWindows() > 0) {
        ps.aggregator.finalizeOpenWindows();
      }
      emit(ps, out);
    }
    openKeyWindows.set(keyWindows);
    watermarkLagMs.set(minWatermark == Long.MAX_VALUE ? 0 : Math.max(0, nowMs - minWatermark));
    send(out);
  }

  /**
   * Whether the events consumer holds any broker connection (its {@code connection-count} metric;
   * metrics are safe to read from any thread).
   */
  private boolean brokerReachable() {
    if (connectionCount == null) {
      for (var e : consumer.unwrap().metrics().entrySet()) {
        if (e.getKey().name().equals("connection-count")
            && e.getKey().group().equals("consumer-metrics")) {
          connectionCount = e.getValue();
        }
      }
      if (connectionCount == null) {
        return true;
      }
    }
    Object v = connectionCount.metricValue();
    return !(v instanceof Number n) || n.doubleValue() > 0;
  }

  /**
   * Records of this partition still waiting on the broker (the consumer's {@code records-lag}
   * metric; 0 when unknown).
   */
  private double lagOf(PartitionState ps) {
    // looked up afresh each time: the consumer replaces a partition's metrics when the
    // partition is reassigned, and a cached one would freeze at its last value
    String partition = Integer.toString(ps.partition);
    for (var e : consumer.unwrap().metrics().entrySet()) {
      var name = e.getKey();
      if (name.name().equals("records-lag")
          && name.group().equals("consumer-fetch-manager-metrics")
          && partition.equals(name.tags().get("partition"))
          && job.topics().events().equals(name.tags().get("topic"))) {
        Object v = e.getValue().metricValue();
        return v instanceof Number n && !Double.isNaN(n.doubleValue()) ? n.doubleValue() : 0;
      }
    }
    return 0;
  }

  private void send(List<ProducerRecord<byte[], byte[]>> out) {
    if (out.isEmpty()) {
      return;
    }
    pending.addAndGet(out.size());
    // ordered: batches leave in the order they were built, so a watermark never overtakes the
    // Partials it covers
    lastSend =
        vertx.executeBlocking(
            () -> {
              for (ProducerRecord<byte[], byte[]> r : out) {
                producer.send(
                    r,
                    (md, e) -> {
                      pending.decrementAndGet();
                      if (e == null) {
                        failingSends.set(0);
                      } else {
                        failingSends.incrementAndGet();
                        sendFailures.incrementAndGet();
                        lostSend.set(true);
                        LOG.error(
                            "node={} failed to produce to topic=[{}]",
                            settings.nodeId(),
                            r.topic(),
                            e);
                      }
                    });
              }
              return null;
            },
            true);
  }

  /**
   * Publishes each owned partition's event rate and candidate hot keys (the fast half of hot-key
   * detection) for the coordinators' fanout policy; entries expire if the node dies.
   */
  private void reportHotKeys() {
    long nowMs = clock.millis();
    Map<String, byte[]> reports = new HashMap<>();
    for (PartitionState ps : partitions.values()) {
      if (!ps.ready) {
        continue;
      }
      Map<String, Double> candidates = new HashMap<>();
      for (HotKeyCandidate c : ps.detector.candidates(nowMs)) {
        candidates.put(c.key(), c.eventsPerSecond());
      }
      reports.put(
          Integer.toString(ps.partition),
          new HotKeyReport(ps.partition, nowMs, ps.detector.rate(nowMs), candidates).encode());
    }
    if (reports.isEmpty()) {
      return;
    }
    vertx
        .executeBlocking(
            () -> {
              com.hazelcast.map.IMap<String, byte[]> map =
                  hazelcast.getMap(JobNames.of(job).hotKeyReportsMap());
              reports.forEach((k, v) -> map.set(k, v, 10, TimeUnit.SECONDS));
              return null;
            },
            false)
        .onFailure(e -> LOG.debug("node={} hot-key report failed", settings.nodeId(), e));
  }

  private String checkpointId(int partition) {
    return "node/" + job.name() + "/" + job.topics().events() + "/" + partition;
  }

  /**
   * Takes a partition over: a new fencing epoch, the last checkpoint (if any) restored, the
   * consumer moved to the checkpoint's offset (or to the reset position without one). Records
   * polled meanwhile are dropped and read again after the seek.
   */
  private void onAssigned(Set<TopicPartition> assigned) {
    LOG.info("node={} assigned {}", settings.nodeId(), assigned);
    joined = true;
    for (TopicPartition tp : assigned) {
      assignedByKafka.add(tp.partition());
      if (!partitions.containsKey(tp.partition())) {
        takeOver(tp);
      }
    }
  }

  /** Restores one partition from its last checkpoint (new epoch) and seeks to its offset. */
  private void takeOver(TopicPartition tp) {
    PartitionState ps = new PartitionState(tp.partition(), clock.millis());
    partitions.put(tp.partition(), ps);
    owned.add(tp.partition());
    String id = checkpointId(tp.partition());
    vertx
        .executeBlocking(
            () -> {
              long epoch = checkpoints.nextEpoch(id);
              Optional<Checkpoint> cp = checkpoints.load(id);
              if (cp.isPresent()) {
                ps.alreadyRouted =
                    SideOutputScanner.routedOffsets(
                        settings.kafka(),
                        List.of(job.topics().late(), job.topics().dlq()),
                        job.topics().events(),
                        tp.partition(),
                        cp.get().nextOffset(),
                        cp.get().createdMs());
              }
              return Map.entry(epoch, cp);
            },
            true)
        .compose(
            loaded -> {
              if (partitions.get(tp.partition()) != ps) {
                return Future.succeededFuture(); // revoked while restoring
              }
              long epoch = loaded.getKey();
              Optional<Checkpoint> cp = loaded.getValue();
              ps.epoch = epoch;
              ps.aggregator =
                  cp.isPresent()
                      ? PartitionAggregator.restore(
                          cp.get().state(), epoch, windows, delayMs, latenessMs, job.toSketchSpec())
                      : new PartitionAggregator(
                          tp.partition(), epoch, windows, delayMs, latenessMs, job.toSketchSpec());
              ps.nextOffset = cp.map(Checkpoint::nextOffset).orElse(0L);
              restores.increment();
              LOG.info(
                  "node={} partition={} epoch={} restored {} open key-windows, resuming at offset {}",
                  settings.nodeId(),
                  tp.partition(),
                  epoch,
                  ps.aggregator.openKeyWindows(),
                  cp.isPresent() ? cp.get().nextOffset() : (resetToLatest ? "latest" : "earliest"));
              Future<Void> seek;
              if (cp.isPresent()) {
                seek = consumer.seek(tp, cp.get().nextOffset());
              } else if (resetToLatest) {
                seek = consumer.seekToEnd(Set.of(tp));
              } else {
                seek = consumer.seekToBeginning(Set.of(tp));
              }
              return seek.onSuccess(
                  v -> {
                    if (partitions.get(tp.partition()) != ps) {
                      return;
                    }
                    ps.ready = true;
                    ps.lastEventWallMs = clock.millis();
                    ps.watermarkDirty = true;
                    List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>();
                    emit(ps, out); // announce the new epoch and the restored watermark
                    send(out);
                  });
            })
        .onFailure(
            e -> {
              LOG.error(
                  "node={} could not restore partition {}; it stays paused until the next"
                      + " rebalance",
                  settings.nodeId(),
                  tp.partition(),
                  e);
            });
  }

  /**
   * A produced record was lost (the broker refused it or the delivery timed out): the state since
   * the last checkpoint may claim outputs that never arrived. Every owned partition goes back to
   * its last checkpoint and replays; the coordinator replaces what it already has.
   */
  private void rewind() {
    LOG.warn(
        "node={} a produced record was lost: rewinding every partition to its last checkpoint",
        settings.nodeId());
    for (PartitionState ps : List.copyOf(partitions.values())) {
      partitions.remove(ps.partition);
      takeOver(new TopicPartition(job.topics().events(), ps.partition));
    }
  }

  /** Gives partitions up: a last checkpoint, then the state is dropped. */
  private void onRevoked(Set<TopicPartition> revoked) {
    LOG.info("node={} revoked {}", settings.nodeId(), revoked);
    for (TopicPartition tp : revoked) {
      assignedByKafka.remove(tp.partition());
      PartitionState ps = partitions.remove(tp.partition());
      owned.remove(tp.partition());
      if (ps != null && ps.ready) {
        checkpoint(ps);
      }
    }
  }

  private void checkpointAll() {
    for (PartitionState ps : partitions.values()) {
      if (ps.ready) { // also when idle: a checkpoint is also how a fenced owner finds out
        checkpoint(ps);
      }
    }
  }

  /**
   * Snapshots a partition on the event loop, then — on the ordered worker, after every record
   * produced so far has been acknowledged (flush) — stores it. A checkpoint therefore never claims
   * outputs that could still be lost. A store that refuses it (a newer owner holds the partition:
   * this node was a zombie) fences the partition here.
   */
  private Future<Boolean> checkpoint(PartitionState ps) {
    long startNs = System.nanoTime();
    byte[] state = ps.aggregator.snapshot();
    long snapshotNs = System.nanoTime() - startNs;
    Checkpoint cp = new Checkpoint(ps.epoch, ps.nextOffset, clock.millis(), state);
    ps.checkpointedOffset = ps.nextOffset;
    String id = checkpointId(ps.partition);
    Future<Boolean> saved =
        vertx.executeBlocking(
            () -> {
              long ioStart = System.nanoTime();
              producer.flush();
              if (lostSend.get()) {
                throw new IllegalStateException(
                    "a produced record was lost since the last checkpoint");
              }
              boolean ok = checkpoints.save(id, cp);
              checkpointDuration.record(
                  snapshotNs + System.nanoTime() - ioStart, TimeUnit.NANOSECONDS);
              checkpointSize.record(state.length);
              return ok;
            },
            true);
    lastSend = saved.mapEmpty();
    saved.onComplete(
        ar -> {
          if (ar.failed()) {
            LOG.warn(
                "node={} checkpoint of partition {} failed",
                settings.nodeId(),
                ps.partition,
                ar.cause());
            if (lostSend.compareAndSet(true, false) && !stopping) {
              rewind();
            }
          } else if (ar.result()) {
            commitOffset(ps.partition, cp.nextOffset());
          } else {
            LOG.warn(
                "node={} partition={} epoch={} is owned by a newer epoch: fenced, state dropped",
                settings.nodeId(),
                ps.partition,
                ps.epoch);
            if (partitions.get(ps.partition) == ps) {
              partitions.remove(ps.partition);
              owned.remove(ps.partition);
              if (assignedByKafka.contains(ps.partition) && !stopping) {
                // the group still gives us the partition: the newer epoch belonged to an owner
                // that lost it (a restore that raced a rebalance, a healed split brain); take it
                // over again under a newer epoch from the latest checkpoint
                LOG.warn(
                    "node={} partition={} is still assigned here: taking it over again",
                    settings.nodeId(),
                    ps.partition);
                takeOver(new TopicPartition(job.topics().events(), ps.partition));
              }
            }
          }
        });
    return saved;
  }

  /**
   * Commits {@code nextOffset} of a partition this node still owns, after a successful checkpoint,
   * so that Kafka tools, exporters and autoscalers see the group's lag. Recovery never reads it:
   * the checkpoint holds the offset that counts.
   */
  private void commitOffset(int partition, long nextOffset) {
    if (stopping || !assignedByKafka.contains(partition)) {
      return;
    }
    consumer
        .commit(
            Map.of(
                new TopicPartition(job.topics().events(), partition),
                new OffsetAndMetadata(nextOffset)))
        .onFailure(
            e ->
                LOG.debug(
                    "node={} commit of partition {} offset {} failed: {}",
                    settings.nodeId(),
                    partition,
                    nextOffset,
                    e.toString()));
  }

  /** Recomputes {@link #readiness()} on the event loop. */
  private void updateReadiness() {
    if (stopping) {
      readiness = Readiness.down("stopping");
      return;
    }
    if (!joined) {
      readiness = Readiness.down("waiting for the consumer group to assign partitions");
      return;
    }
    List<Integer> waiting = new ArrayList<>();
    for (int p : assignedByKafka) {
      PartitionState ps = partitions.get(p);
      if (ps == null || !ps.ready) {
        waiting.add(p);
      }
    }
    if (!waiting.isEmpty()) {
      java.util.Collections.sort(waiting);
      readiness = Readiness.down("partitions " + waiting + " of the events topic not restored yet");
      return;
    }
    long failing = failingSends.get();
    if (failing > 0) {
      readiness = Readiness.down(failing + " produced records failed since the last success");
      return;
    }
    readiness = Readiness.up(assignedByKafka.size() + " partitions restored and consuming");
  }

  /**
   * Ready when the group has assigned partitions (possibly none), every assigned partition is
   * restored and consuming, and produces succeed. Safe to read from any thread.
   */
  public Readiness readiness() {
    return readiness;
  }

  /** The Kafka consumer of the events topic (for metrics binders; its metrics are thread-safe). */
  public org.apache.kafka.clients.consumer.Consumer<byte[], byte[]> kafkaConsumer() {
    return consumer.unwrap();
  }

  /** The Kafka producer of partials and side outputs (for metrics binders). */
  public org.apache.kafka.clients.producer.Producer<byte[], byte[]> kafkaProducer() {
    return producer;
  }

  /** Source partitions this verticle owns now. */
  public Set<Integer> ownedPartitions() {
    return Set.copyOf(owned);
  }

  /** Sends that failed (should stay 0). */
  public long sendFailures() {
    return sendFailures.get();
  }

  @Override
  public Future<?> stop() {
    if (stopping) {
      return Future.succeededFuture();
    }
    stopping = true;
    readiness = Readiness.down("stopping");
    if (tickTimer >= 0) {
      vertx.cancelTimer(tickTimer);
    }
    if (readinessTimer >= 0) {
      vertx.cancelTimer(readinessTimer);
    }
    if (checkpointTimer >= 0) {
      vertx.cancelTimer(checkpointTimer);
    }
    if (reportTimer >= 0) {
      vertx.cancelTimer(reportTimer);
    }
    for (PartitionState ps : List.copyOf(partitions.values())) {
      if (ps.ready && producer != null) {
        checkpoint(ps);
      }
    }
    Promise<Void> done = Promise.promise();
    Future<Void> closeConsumer = consumer == null ? Future.succeededFuture() : consumer.close();
    closeConsumer
        .eventually(() -> lastSend)
        .eventually(
            () ->
                vertx.executeBlocking(
                    () -> {
                      if (producer != null) {
                        producer.flush();
                        producer.close(Duration.ofSeconds(5));
                      }
                      return null;
                    }))
        .onComplete(ar -> done.complete());
    return done.future();
  }

  private static final class PartitionState {
    final int partition;
    PartitionAggregator aggregator; // null until restored
    long epoch;
    boolean ready;
    long nextOffset;
    long checkpointedOffset = -1;
    long lastEventWallMs;
    boolean idle;
    boolean watermarkDirty;
    long broadcastWatermarkMs = Long.MIN_VALUE;
    Set<Long> alreadyRouted = Set.of(); // side outputs written by the previous owner
    final HotKeyDetector detector = new HotKeyDetector(HotKeyDetector.Config.defaults());

    PartitionState(int partition, long nowMs) {
      this.partition = partition;
      this.lastEventWallMs = nowMs;
    }
  }
}

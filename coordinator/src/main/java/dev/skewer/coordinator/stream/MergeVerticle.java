package dev.skewer.coordinator.stream;

import dev.skewer.coordinator.CoordinatorMetrics;
import dev.skewer.coordinator.CoordinatorSettings;
import dev.skewer.coordinator.hotkey.FanoutPolicy;
import dev.skewer.coordinator.hotkey.HotKeyPublisher;
import dev.skewer.coordinator.hotkey.HotKeyStatus;
import dev.skewer.coordinator.merge.FinalResult;
import dev.skewer.coordinator.merge.WindowMerger;
import dev.skewer.coordinator.topk.TopKStore;
import dev.skewer.coordinator.topk.WindowTopK;
import dev.skewer.core.checkpoint.Checkpoint;
import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.health.Readiness;
import dev.skewer.core.hotkey.HotKeyReport;
import dev.skewer.core.hotkey.HotKeyTable;
import dev.skewer.core.job.JobNames;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.result.ResultFormatter;
import dev.skewer.core.wire.Partial;
import dev.skewer.core.wire.PartialsMessage;
import dev.skewer.core.wire.Watermark;
import dev.skewer.core.wire.WireCodec;
import dev.skewer.core.wire.WireFormatException;
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
import java.util.HashMap;
import java.util.HashSet;
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
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes the partials topic; one {@link WindowMerger} and one {@link WindowTopK} per owned
 * partials partition. After each poll batch it advances the mergers of the partitions the batch
 * touched, writes their results to the results topic (key {@code <key>@<windowStart>}: an upsert)
 * and publishes the changed windows' top-K lists.
 */
public final class MergeVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(MergeVerticle.class);
  private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);
  private static final long METADATA_REFRESH_MS = 30_000;

  // configuration
  private final CoordinatorSettings settings;
  private final JobSpec job;
  private final MeterRegistry registry;
  private final Clock clock;
  private final TopKStore topKStore;
  private final CheckpointStore checkpoints;
  private final com.hazelcast.core.HazelcastInstance hazelcast; // null: no node reports

  // transient state
  private KafkaReadStream<byte[], byte[]> consumer;
  private KafkaProducer<byte[], byte[]> producer;
  private ResultFormatter formatter;
  private int sourcePartitions;
  private final Map<Integer, Owned> owned = new HashMap<>();
  private final Set<Integer> ownedView = ConcurrentHashMap.newKeySet();
  private final Set<Integer> assignedByKafka = new java.util.HashSet<>(); // the group's word
  private final AtomicLong pending = new AtomicLong();
  private final AtomicLong sendFailures = new AtomicLong();
  private final java.util.concurrent.atomic.AtomicBoolean lostSend =
      new java.util.concurrent.atomic.AtomicBoolean();
  private final AtomicLong heldPartials = new AtomicLong();
  private final AtomicLong watermarkLagMs = new AtomicLong();
  private final AtomicLong resultsWritten = new AtomicLong();
  private volatile boolean ready; // subscribed and polling
  private boolean stopping;
  // readiness and offset commits (ops): a self-contained piece, see readiness() and commitOffset()
  private static final long READINESS_INTERVAL_MS = 100;
  private long readinessTimer = -1;
  private boolean joined; // the group assigned partitions at least once (possibly none)
  private final AtomicLong failingSends = new AtomicLong(); // failures since the last success
  private volatile Readiness readiness = Readiness.down("starting");
  private long metadataTimer = -1;
  private long checkpointTimer = -1;
  private long hotKeyTimer = -1;
  private FanoutPolicy fanout; // null: hot keys disabled
  private HotKeyPublisher publisher;
  private volatile List<HotKeyStatus> hotKeyStatus = List.of();
  private boolean publishing;
  private Future<Void> lastSend = Future.succeededFuture();

  // metrics
  private Counter partialsIn;
  private Counter partialsStale;
  private Counter partialsLate;
  private Counter partialsInvalid;
  private Counter resultsOut;
  private Counter revisionsOut;
  private Timer checkpointDuration;
  private DistributionSummary checkpointSize;

  public MergeVerticle(
      CoordinatorSettings settings,
      MeterRegistry registry,
      Clock clock,
      TopKStore topKStore,
      CheckpointStore checkpoints,
      com.hazelcast.core.HazelcastInstance hazelcast) {
    this.settings = settings;
    this.hazelcast = hazelcast;
    this.checkpoints = checkpoints;
    this.job = settings.job();
    this.registry = registry;
    this.clock = clock;
    this.topKStore = topKStore;
  }

  @Override
  public Future<?> start() {
    formatter = new ResultFormatter(job);
    String id = settings.coordinatorId();
    partialsIn = counter(CoordinatorMetrics.PARTIALS_IN, id);
    partialsStale = counter(CoordinatorMetrics.PARTIALS_STALE, id);
    partialsLate = counter(CoordinatorMetrics.PARTIALS_LATE, id);
    partialsInvalid = counter(CoordinatorMetrics.PARTIALS_INVALID, id);
    resultsOut = counter(CoordinatorMetrics.RESULTS_OUT, id);
    revisionsOut = counter(CoordinatorMetrics.RESULT_REVISIONS, id);
    checkpointDuration =
        Timer.builder(CoordinatorMetrics.CHECKPOINT_DURATION)
            .tag("coordinator", id)
            .register(registry);
    checkpointSize =
        DistributionSummary.builder(CoordinatorMetrics.CHECKPOINT_SIZE)
            .baseUnit("bytes")
            .tag("coordinator", id)
            .register(registry);
    Gauge.builder(CoordinatorMetrics.HELD_PARTIALS, heldPartials, AtomicLong::get)
        .tag("coordinator", id)
        .register(registry);
    Gauge.builder(CoordinatorMetrics.WATERMARK_LAG, watermarkLagMs, ms -> ms.get() / 1000.0)
        .tag("coordinator", id)
        .baseUnit("seconds")
        .register(registry);

    Map<String, Object> consumerConfig =
        new HashMap<>(settings.kafka().consumerConfig(settings.groupId()));
    consumerConfig.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    consumerConfig.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    consumerConfig.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
    consumerConfig.putIfAbsent(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "50");
    consumerConfig.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "skewer-" + id + "-partials");

    return vertx
        .executeBlocking(
            () -> {
              Map<String, Object> producerConfig = new HashMap<>(settings.kafka().producerConfig());
              producerConfig.putIfAbsent("client.id", "skewer-" + id + "-results");
              KafkaProducer<byte[], byte[]> p =
                  new KafkaProducer<>(
                      producerConfig, new ByteArraySerializer(), new ByteArraySerializer());
              try {
                int sources = p.partitionsFor(job.topics().events()).size();
                if (settings.hotKeys().enabled()) {
                  try (org.apache.kafka.clients.admin.Admin admin =
                      org.apache.kafka.clients.admin.Admin.create(settings.kafka().adminConfig())) {
                    HotKeyPublisher.ensureTopic(
                        admin,
                        settings.hotKeys().topic(),
                        job.topics().replicationFactor(),
                        Duration.ofSeconds(30),
                        settings.provision());
                  }
                  Map<String, Object> pc = new HashMap<>(settings.kafka().producerConfig());
                  pc.put("client.id", "skewer-" + id + "-hotkeys");
                  publisher =
                      HotKeyPublisher.owning(
                          new KafkaProducer<>(
                              pc, new ByteArraySerializer(), new ByteArraySerializer()),
                          settings.hotKeys().topic(),
                          hazelcast,
                          JobNames.of(job).hotKeysMap());
                }
                return Map.entry(p, sources);
              } catch (RuntimeException e) {
                p.close(Duration.ZERO);
                throw e;
              }
            })
        .compose(
            ps -> {
              producer = ps.getKey();
              sourcePartitions = ps.getValue();
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
                      LOG.debug("coordinator={} offset commit skipped: {}", id, e.toString());
                    } else {
                      LOG.warn("coordinator={} consumer error", id, e);
                    }
                  });
              return consumer.subscribe(Set.of(job.topics().partials()));
            })
        .onSuccess(
            v -> {
              LOG.info(
                  "coordinator={} consuming topic={} group={} source partitions={}",
                  id,
                  job.topics().partials(),
                  settings.groupId(),
                  sourcePartitions);
              ready = true;
              readinessTimer = vertx.setPeriodic(READINESS_INTERVAL_MS, t -> updateReadiness());
              if (publisher != null) {
                fanout = new FanoutPolicy(settings.hotKeys().policy(), sourcePartitions, clock);
                hotKeyTimer = vertx.setPeriodic(1_000, t -> hotKeyTick());
              }
              metadataTimer = vertx.setPeriodic(METADATA_REFRESH_MS, t -> refreshSources());
              checkpointTimer =
                  vertx.setPeriodic(settings.checkpointInterval().toMillis(), t -> checkpointAll());
              pollLoop();
            });
  }

  private Counter counter(String name, String id) {
    return Counter.builder(name).tag("coordinator", id).register(registry);
  }

  private void refreshSources() {
    vertx
        .executeBlocking(() -> producer.partitionsFor(job.topics().events()).size())
        .onSuccess(
            n -> {
              if (n > sourcePartitions) {
                LOG.info(
                    "coordinator={} source partitions {} -> {}",
                    settings.coordinatorId(),
                    sourcePartitions,
                    n);
                sourcePartitions = n;
                owned.values().stream()
                    .filter(o -> o.ready)
                    .forEach(o -> o.merger.resizeSources(n));
              }
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
                  LOG.error(
                      "coordinator={} failed to process a batch", settings.coordinatorId(), e);
                }
              } else if (!stopping) {
                LOG.warn("coordinator={} poll failed", settings.coordinatorId(), ar.cause());
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
    List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>();
    List<Runnable> publications = new ArrayList<>();
    long held = 0;
    long minGlobal = Long.MAX_VALUE;
    for (TopicPartition tp : records.partitions()) {
      Owned o = owned.get(tp.partition());
      if (o == null || !o.ready) {
        continue; // not (yet) restored: read again after the seek
      }
      for (ConsumerRecord<byte[], byte[]> r : records.records(tp)) {
        if (r.offset() < o.nextOffset) {
          continue;
        }
        o.nextOffset = r.offset() + 1;
        PartialsMessage m;
        try {
          m = WireCodec.decode(r.value());
        } catch (WireFormatException e) {
          partialsInvalid.increment();
          LOG.warn(
              "invalid partials record topic=[{}] partition=[{}] offset=[{}]: {}",
              r.topic(),
              r.partition(),
              r.offset(),
              e.getMessage());
          continue;
        }
        if (m instanceof Partial p) {
          partialsIn.increment();
          long staleBefore = o.merger.stalePartials();
          long lateBefore = o.merger.latePartials();
          o.merger.accept(p);
          partialsStale.increment(o.merger.stalePartials() - staleBefore);
          partialsLate.increment(o.merger.latePartials() - lateBefore);
        } else if (m instanceof Watermark w) {
          if (!o.merger.accept(w)) {
            partialsStale.increment();
          }
        }
      }
      advance(o, out, publications);
    }
    for (Owned o : owned.values()) {
      if (!o.ready) {
        continue;
      }
      held += o.merger.heldPartials();
      long g = o.merger.globalWatermarkMs();
      if (g != Long.MIN_VALUE) {
        minGlobal = Math.min(minGlobal, g);
      }
    }
    heldPartials.set(held);
    if (minGlobal != Long.MAX_VALUE) {
      watermarkLagMs.set(Math.max(0, clock.millis() - minGlobal));
    }
    send(out, publications);
  }

  private void advance(
      Owned o, List<ProducerRecord<byte[], byte[]>> out, List<Runnable> publications) {
    Set<Long> touchedWindows = new HashSet<>();
    String results = job.topics().results();
    o.merger.advance(
        (FinalResult r) -> {
          String resultKey = formatter.resultKey(r.key(), r.windowStartMs());
          String supersededBy =
              r.superseded() ? formatter.resultKey(r.key(), r.supersededByStartMs()) : null;
          int revision = r.revision();
          byte[] value =
              formatter.format(
                  r.key(),
                  r.windowStartMs(),
                  r.windowEndMs(),
                  r.aggregate(),
                  revision,
                  r.dimensions(),
                  supersededBy);
          boolean alreadyWritten = false;
          if (!o.written.isEmpty()) {
            // replaying after a failover: never write again what the previous owner wrote, and
            // continue its revision numbers
            String content =
                WrittenResults.withoutRevision(new String(value, StandardCharsets.UTF_8));
            WrittenResults.Written w = o.written.get(resultKey);
            if (w != null) {
              if (w.content().equals(content)) {
                alreadyWritten = true;
              } else {
                revision = Math.max(revision, w.revision() + 1);
                if (revision != r.revision()) {
                  value =
                      formatter.format(
                          r.key(),
                          r.windowStartMs(),
                          r.windowEndMs(),
                          r.aggregate(),
                          revision,
                          r.dimensions(),
                          supersededBy);
                }
                o.written.put(resultKey, revision, content);
              }
            }
          }
          if (!alreadyWritten) {
            out.add(
                new ProducerRecord<>(results, resultKey.getBytes(StandardCharsets.UTF_8), value));
            resultsOut.increment();
            if (revision > 0) {
              revisionsOut.increment();
            }
          }
          // the top-K index and the fanout policy look at fixed windows: not at sessions (one
          // per user), and for hopping windows only at those aligned on their size, so each
          // event is seen once
          if (!r.superseded() && countsForIndexes(r.windowStartMs())) {
            o.topK.record(r.windowStartMs(), r.windowEndMs(), r.key(), r.aggregate().count());
            if (fanout != null) {
              fanout.observeResult(
                  r.key(), r.windowStartMs(), r.windowEndMs(), r.aggregate().count());
            }
            touchedWindows.add(r.windowStartMs());
          }
        });
    for (long windowStartMs : touchedWindows) {
      long windowEndMs = o.topK.windowEndMs(windowStartMs);
      var top = o.topK.top(windowStartMs);
      int q = o.partition;
      publications.add(() -> topKStore.publish(q, windowStartMs, windowEndMs, top));
    }
  }

  private void send(List<ProducerRecord<byte[], byte[]>> out, List<Runnable> publications) {
    if (out.isEmpty() && publications.isEmpty()) {
      return;
    }
    pending.addAndGet(out.size());
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
                        resultsWritten.incrementAndGet();
                      } else {
                        failingSends.incrementAndGet();
                        sendFailures.incrementAndGet();
                        lostSend.set(true);
                        LOG.error(
                            "coordinator={} failed to produce to topic=[{}]",
                            settings.coordinatorId(),
                            r.topic(),
                            e);
                      }
                    });
              }
              for (Runnable publication : publications) {
                try {
                  publication.run();
                } catch (RuntimeException e) {
                  LOG.warn("coordinator={} top-K publication failed", settings.coordinatorId(), e);
                }
              }
              return null;
            },
            true);
  }

  /**
   * Once a second: close the policy's windows up to the global watermark, feed it the nodes'
   * reports for keys this coordinator owns, and publish the table when it changed.
   */
  private void hotKeyTick() {
    if (stopping || owned.isEmpty() || publishing) {
      return;
    }
    long minGlobal = Long.MAX_VALUE;
    for (Owned o : owned.values()) {
      if (o.ready) {
        minGlobal = Math.min(minGlobal, o.merger.globalWatermarkMs());
      }
    }
    if (minGlobal != Long.MAX_VALUE && minGlobal != Long.MIN_VALUE) {
      fanout.sealWindowsEndingBy(minGlobal);
    }
    publishing = true;
    vertx
        .executeBlocking(
            () ->
                hazelcast == null
                    ? List.<HotKeyReport>of()
                    : HotKeyReport.decodeAll(
                        hazelcast
                            .<String, byte[]>getMap(JobNames.of(job).hotKeyReportsMap())
                            .values()),
            false)
        .compose(
            reports -> {
              int partials = job.topics().partialsPartitions();
              for (HotKeyReport r : reports) {
                fanout.observePartitionRate(r.partition(), r.eventsPerSecond());
                r.candidates()
                    .forEach(
                        (key, rate) -> {
                          int q =
                              org.apache.kafka.common.utils.Utils.toPositive(
                                      org.apache.kafka.common.utils.Utils.murmur2(
                                          key.getBytes(StandardCharsets.UTF_8)))
                                  % partials;
                          if (ownedView.contains(q)) {
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

  private boolean countsForIndexes(long windowStartMs) {
    if (job.window() instanceof dev.skewer.core.job.SessionWindow) {
      return false;
    }
    if (job.window() instanceof dev.skewer.core.job.HoppingWindow h) {
      return Math.floorMod(windowStartMs, h.size().toMillis()) == 0;
    }
    return true;
  }

  /** The hot keys this coordinator decided, with their measured rates (for the HTTP API). */
  public List<HotKeyStatus> hotKeyStatus() {
    return hotKeyStatus;
  }

  private String checkpointId(int q) {
    return "coordinator/" + job.name() + "/" + job.topics().partials() + "/" + q;
  }

  /**
   * Takes a partials partition over: its last checkpoint (held Partials, per-source watermarks and
   * epochs, finalised windows and their revisions) restored and the consumer moved to the
   * checkpoint's offset — or, without one, to the beginning of the partials topic.
   */
  private void onAssigned(Set<TopicPartition> assigned) {
    LOG.info("coordinator={} assigned {}", settings.coordinatorId(), assigned);
    joined = true;
    for (TopicPartition tp : assigned) {
      assignedByKafka.add(tp.partition());
      if (!owned.containsKey(tp.partition())) {
        takeOver(tp);
      }
    }
  }

  /** Restores one partials partition from its last checkpoint and seeks to its offset. */
  private void takeOver(TopicPartition tp) {
    int q = tp.partition();
    Owned o = new Owned(q, new WindowTopK(job.topK(), settings.topKWindows()));
    owned.put(q, o);
    ownedView.add(q);
    String id = checkpointId(q);
    vertx
        .executeBlocking(
            () -> {
              long epoch = checkpoints.nextEpoch(id);
              Optional<Checkpoint> cp = checkpoints.load(id);
              if (cp.isPresent()) {
                o.written =
                    WrittenResults.scan(
                        settings.kafka(),
                        job.topics().results(),
                        q,
                        job.topics().partialsPartitions(),
                        cp.get().createdMs());
              }
              return Map.entry(epoch, cp);
            },
            true)
        .compose(
            loaded -> {
              if (owned.get(q) != o) {
                return Future.succeededFuture();
              }
              Optional<Checkpoint> cp = loaded.getValue();
              o.epoch = loaded.getKey();
              long lateness = job.allowedLateness().toMillis();
              o.merger =
                  cp.isPresent()
                      ? WindowMerger.restore(
                          cp.get().state(), sourcePartitions, lateness, job.toSketchSpec())
                      : new WindowMerger(sourcePartitions, lateness, job.toSketchSpec());
              o.nextOffset = cp.map(Checkpoint::nextOffset).orElse(0L);
              LOG.info(
                  "coordinator={} partition={} epoch={} restored {} held partials, resuming at offset {}",
                  settings.coordinatorId(),
                  q,
                  o.epoch,
                  o.merger.heldPartials(),
                  cp.isPresent() ? cp.get().nextOffset() : "earliest");
              Future<Void> seek =
                  cp.isPresent()
                      ? consumer.seek(tp, cp.get().nextOffset())
                      : consumer.seekToBeginning(Set.of(tp));
              return seek.onSuccess(
                  v -> {
                    if (owned.get(q) == o) {
                      o.ready = true;
                    }
                  });
            })
        .onFailure(
            e ->
                LOG.error(
                    "coordinator={} could not restore partition {}",
                    settings.coordinatorId(),
                    q,
                    e));
  }

  /** A produced result was lost: every partition goes back to its last checkpoint and replays. */
  private void rewind() {
    LOG.warn(
        "coordinator={} a produced record was lost: rewinding to the last checkpoints",
        settings.coordinatorId());
    for (Owned o : List.copyOf(owned.values())) {
      owned.remove(o.partition);
      takeOver(new TopicPartition(job.topics().partials(), o.partition));
    }
  }

  private void onRevoked(Set<TopicPartition> revoked) {
    LOG.info("coordinator={} revoked {}", settings.coordinatorId(), revoked);
    for (TopicPartition tp : revoked) {
      assignedByKafka.remove(tp.partition());
      Owned o = owned.remove(tp.partition());
      ownedView.remove(tp.partition());
      if (o != null && o.ready) {
        checkpoint(o);
      }
    }
  }

  private void checkpointAll() {
    for (Owned o : owned.values()) {
      if (o.ready) { // also when idle: a checkpoint is also how a fenced owner finds out
        checkpoint(o);
      }
    }
  }

  /**
   * Snapshots on the event loop; stores on the ordered worker after every result produced so far is
   * acknowledged, so a checkpoint never claims a result that could still be lost.
   */
  private void checkpoint(Owned o) {
    long startNs = System.nanoTime();
    byte[] state = o.merger.snapshot();
    long snapshotNs = System.nanoTime() - startNs;
    Checkpoint cp = new Checkpoint(o.epoch, o.nextOffset, clock.millis(), state);
    o.checkpointedOffset = o.nextOffset;
    String id = checkpointId(o.partition);
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
                "coordinator={} checkpoint of partition {} failed",
                settings.coordinatorId(),
                o.partition,
                ar.cause());
            if (lostSend.compareAndSet(true, false) && !stopping) {
              rewind();
            }
          } else if (ar.result()) {
            commitOffset(o.partition, cp.nextOffset());
          } else {
            LOG.warn(
                "coordinator={} partition={} epoch={} is owned by a newer epoch: fenced",
                settings.coordinatorId(),
                o.partition,
                o.epoch);
            if (owned.get(o.partition) == o) {
              owned.remove(o.partition);
              ownedView.remove(o.partition);
              if (assignedByKafka.contains(o.partition) && !stopping) {
                LOG.warn(
                    "coordinator={} partition={} is still assigned here: taking it over again",
                    settings.coordinatorId(),
                    o.partition);
                takeOver(new TopicPartition(job.topics().partials(), o.partition));
              }
            }
          }
        });
  }

  /**
   * Commits {@code nextOffset} of a partials partition this coordinator still owns, after a
   * successful checkpoint, so that Kafka tools, exporters and autoscalers see the group's lag.
   * Recovery never reads it: the checkpoint holds the offset that counts.
   */
  private void commitOffset(int partition, long nextOffset) {
    if (stopping || !assignedByKafka.contains(partition)) {
      return;
    }
    consumer
        .commit(
            Map.of(
                new TopicPartition(job.topics().partials(), partition),
                new org.apache.kafka.clients.consumer.OffsetAndMetadata(nextOffset)))
        .onFailure(
            e ->
                LOG.debug(
                    "coordinator={} commit of partition {} offset {} failed: {}",
                    settings.coordinatorId(),
                    partition,
                    nextOffset,
                    e.toString()));
  }

  /** Recomputes {@link #readiness()} on the event loop. */
  private void updateReadiness() {
    if (stopping || !ready) {
      readiness = Readiness.down(stopping ? "stopping" : "not subscribed yet");
      return;
    }
    if (!joined) {
      readiness = Readiness.down("waiting for the consumer group to assign partitions");
      return;
    }
    List<Integer> waiting = new ArrayList<>();
    for (int q : assignedByKafka) {
      Owned o = owned.get(q);
      if (o == null || !o.ready) {
        waiting.add(q);
      }
    }
    if (!waiting.isEmpty()) {
      java.util.Collections.sort(waiting);
      readiness =
          Readiness.down("partitions " + waiting + " of the partials topic not restored yet");
      return;
    }
    long failing = failingSends.get();
    if (failing > 0) {
      readiness = Readiness.down(failing + " produced results failed since the last success");
      return;
    }
    readiness = Readiness.up(assignedByKafka.size() + " partitions restored and consuming");
  }

  /**
   * Ready when subscribed, the group has assigned partitions (possibly none), every assigned
   * partition is restored and consuming, and produces succeed. Safe to read from any thread.
   */
  public Readiness readiness() {
    return readiness;
  }

  /** Whether {@link #readiness()} is ready (what {@code /health/ready} answers 200 to). */
  public boolean ready() {
    return readiness.ready();
  }

  /** The Kafka consumer of the partials topic (for metrics binders). */
  public org.apache.kafka.clients.consumer.Consumer<byte[], byte[]> kafkaConsumer() {
    return consumer.unwrap();
  }

  /** The Kafka producer of results (for metrics binders). */
  public org.apache.kafka.clients.producer.Producer<byte[], byte[]> kafkaProducer() {
    return producer;
  }

  /** Partials partitions owned now. */
  public Set<Integer> ownedPartitions() {
    return Set.copyOf(ownedView);
  }

  /** Results acknowledged by the broker. */
  public long resultsWritten() {
    return resultsWritten.get();
  }

  public long sendFailures() {
    return sendFailures.get();
  }

  @Override
  public Future<?> stop() {
    if (stopping) {
      return Future.succeededFuture();
    }
    stopping = true;
    ready = false;
    readiness = Readiness.down("stopping");
    if (readinessTimer >= 0) {
      vertx.cancelTimer(readinessTimer);
    }
    if (metadataTimer >= 0) {
      vertx.cancelTimer(metadataTimer);
    }
    if (checkpointTimer >= 0) {
      vertx.cancelTimer(checkpointTimer);
    }
    if (hotKeyTimer >= 0) {
      vertx.cancelTimer(hotKeyTimer);
    }
    for (Owned o : List.copyOf(owned.values())) {
      if (o.ready && producer != null) {
        checkpoint(o);
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
                      if (publisher != null) {
                        publisher.close();
                      }
                      return null;
                    }))
        .onComplete(ar -> done.complete());
    return done.future();
  }

  private static final class Owned {
    final int partition;
    final WindowTopK topK;
    WindowMerger merger; // null until restored
    long epoch;
    boolean ready;
    long nextOffset;
    long checkpointedOffset = -1;
    WrittenResults written = WrittenResults.none(); // results the previous owner wrote

    Owned(int partition, WindowTopK topK) {
      this.partition = partition;
      this.topK = topK;
    }
  }
}

package dev.skewer.coordinator.stream;

import dev.skewer.coordinator.CoordinatorMetrics;
import dev.skewer.coordinator.CoordinatorSettings;
import dev.skewer.coordinator.merge.FinalResult;
import dev.skewer.coordinator.merge.WindowMerger;
import dev.skewer.coordinator.topk.TopKStore;
import dev.skewer.coordinator.topk.WindowTopK;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.result.ResultFormatter;
import dev.skewer.core.wire.Partial;
import dev.skewer.core.wire.PartialsMessage;
import dev.skewer.core.wire.Watermark;
import dev.skewer.core.wire.WireCodec;
import dev.skewer.core.wire.WireFormatException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
 * touched, writes their results to the results topic (key {@code <key>@<windowStart>}: an
 * upsert) and publishes the changed windows' top-K lists.
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

  // transient state
  private KafkaReadStream<byte[], byte[]> consumer;
  private KafkaProducer<byte[], byte[]> producer;
  private ResultFormatter formatter;
  private int sourcePartitions;
  private final Map<Integer, Owned> owned = new HashMap<>();
  private final Set<Integer> ownedView = ConcurrentHashMap.newKeySet();
  private final AtomicLong pending = new AtomicLong();
  private final AtomicLong sendFailures = new AtomicLong();
  private final AtomicLong heldPartials = new AtomicLong();
  private final AtomicLong watermarkLagMs = new AtomicLong();
  private final AtomicLong resultsWritten = new AtomicLong();
  private volatile boolean ready;
  private boolean stopping;
  private long metadataTimer = -1;
  private Future<Void> lastSend = Future.succeededFuture();

  // metrics
  private Counter partialsIn;
  private Counter partialsStale;
  private Counter partialsLate;
  private Counter partialsInvalid;
  private Counter resultsOut;
  private Counter revisionsOut;

  public MergeVerticle(
      CoordinatorSettings settings, MeterRegistry registry, Clock clock, TopKStore topKStore) {
    this.settings = settings;
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
    Gauge.builder(CoordinatorMetrics.HELD_PARTIALS, heldPartials, AtomicLong::get)
        .tag("coordinator", id)
        .register(registry);
    Gauge.builder(CoordinatorMetrics.WATERMARK_LAG, watermarkLagMs, AtomicLong::get)
        .tag("coordinator", id)
        .baseUnit("milliseconds")
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
              consumer.exceptionHandler(e -> LOG.warn("coordinator={} consumer error", id, e));
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
              metadataTimer = vertx.setPeriodic(METADATA_REFRESH_MS, t -> refreshSources());
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
                LOG.info("coordinator={} source partitions {} -> {}", settings.coordinatorId(), sourcePartitions, n);
                sourcePartitions = n;
                owned.values().forEach(o -> o.merger.resizeSources(n));
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
                  LOG.error("coordinator={} failed to process a batch", settings.coordinatorId(), e);
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
      Owned o = ownedPartition(tp.partition());
      for (ConsumerRecord<byte[], byte[]> r : records.records(tp)) {
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
          byte[] key =
              formatter.resultKey(r.key(), r.windowStartMs()).getBytes(StandardCharsets.UTF_8);
          byte[] value =
              formatter.format(
                  r.key(), r.windowStartMs(), r.windowEndMs(), r.aggregate(), r.revision(), null);
          out.add(new ProducerRecord<>(results, key, value));
          resultsOut.increment();
          if (r.revision() > 0) {
            revisionsOut.increment();
          }
          o.topK.record(r.windowStartMs(), r.windowEndMs(), r.key(), r.aggregate().count());
          touchedWindows.add(r.windowStartMs());
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
                      if (e != null) {
                        sendFailures.incrementAndGet();
                        LOG.error(
                            "coordinator={} failed to produce to topic=[{}]",
                            settings.coordinatorId(),
                            r.topic(),
                            e);
                      } else {
                        resultsWritten.incrementAndGet();
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

  private Owned ownedPartition(int q) {
    Owned o = owned.get(q);
    if (o == null) {
      o =
          new Owned(
              q,
              new WindowMerger(
                  sourcePartitions, job.allowedLateness().toMillis(), job.toSketchSpec()),
              new WindowTopK(job.topK(), settings.topKWindows()));
      owned.put(q, o);
      ownedView.add(q);
    }
    return o;
  }

  private void onAssigned(Set<TopicPartition> assigned) {
    for (TopicPartition tp : assigned) {
      ownedPartition(tp.partition());
    }
    LOG.info("coordinator={} assigned {}", settings.coordinatorId(), assigned);
  }

  private void onRevoked(Set<TopicPartition> revoked) {
    for (TopicPartition tp : revoked) {
      owned.remove(tp.partition());
      ownedView.remove(tp.partition());
    }
    LOG.info("coordinator={} revoked {}", settings.coordinatorId(), revoked);
  }

  /** Whether the verticle has subscribed and polls. */
  public boolean ready() {
    return ready && !stopping;
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
    if (metadataTimer >= 0) {
      vertx.cancelTimer(metadataTimer);
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

  private static final class Owned {
    final int partition;
    final WindowMerger merger;
    final WindowTopK topK;

    Owned(int partition, WindowMerger merger, WindowTopK topK) {
      this.partition = partition;
      this.merger = merger;
      this.topK = topK;
    }
  }
}

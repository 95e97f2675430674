package dev.skewer.reconcile;

import dev.skewer.core.event.EventDecoder;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.window.SliceAssigner;
import dev.skewer.core.window.WindowShape;
import dev.skewer.reconcile.internal.ExternalSorter;
import dev.skewer.reconcile.internal.ReconcileEngine;
import dev.skewer.reconcile.internal.SideIndex;
import dev.skewer.reconcile.internal.Tally;
import dev.skewer.reconcile.internal.TopicScan;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Batch reconciliation: recomputes every result of a job whose interval lies inside an event-time
 * range, exactly, from the raw input topic, and compares it with the latest streamed record of the
 * results topic; checks that every input record of the range is in exactly one of {a result, the
 * late topic, the DLQ}; optionally writes corrected results.
 *
 * <p>How, in four reads and a merge (docs/reconcile.md):
 *
 * <ol>
 *   <li>the late topic and the DLQ, from the range start − margin on, into a {@link SideIndex} of
 *       the input offsets they hold ({@code skewer.source.*} headers): the stream's own record of
 *       which events it left out and why;
 *   <li>the results topic, from the range start − margin on: results starting inside the range;
 *   <li>the input topic, from the first record stamped at or after the range start − margin (− the
 *       session gap) to the first stamped at or after the range end + margin (+ the gap): decoded
 *       with the node's {@link EventDecoder}; records the side topics hold are set aside;
 *   <li>all of it sorted by key in bounded memory ({@link ExternalSorter}), then key by key
 *       recomputed through the node's and coordinator's cores and compared ({@link
 *       dev.skewer.reconcile.internal.KeyReconciler}).
 * </ol>
 *
 * <p>Blocking; one call per thread.
 */
public final class Reconciler {

  private static final Logger LOG = LoggerFactory.getLogger(Reconciler.class);
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private Reconciler() {}

  /**
   * Runs a reconciliation.
   *
   * @param progress receives progress about once a second while reading and merging (may be null)
   * @throws IllegalStateException when a topic is missing, a read stalls or corrections cannot be
   *     written
   * @throws org.apache.kafka.common.KafkaException when the broker fails
   * @throws java.io.UncheckedIOException when spill files cannot be written or read
   */
  public static ReconcileReport run(
      ReconcileOptions options, Consumer<ReconcileProgress> progress) {
    long startNs = System.nanoTime();
    JobSpec job = options.job();
    long fromMs = options.from().toEpochMilli();
    long toMs = options.to().toEpochMilli();
    long marginMs = options.margin().toMillis();
    WindowShape shape = SliceAssigner.of(job.window()).shape();
    long reachMs = ReconcileEngine.reachMs(job);
    List<String> warnings = new ArrayList<>();
    long nowMs = options.clock().millis();
    if (toMs + marginMs + reachMs > nowMs) {
      warnings.add(
          "the range ends less than the margin ago: the stream may not have closed its last"
              + " windows yet, and events still arriving are not read");
    }
    Map<String, Object> config = options.kafka().consumerConfig(null);
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    config.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    config.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "skewer-reconcile");
    config.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
    config.putIfAbsent(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "4194304");
    List<ReconcileReport.InputRange> inputRanges = new ArrayList<>();
    ReconcileReport.Memory memory;
    Tally tally;
    try (KafkaConsumer<byte[], byte[]> consumer =
            new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        ReconcileEngine engine =
            new ReconcileEngine(
                job,
                fromMs,
                toMs,
                options.sigmas(),
                options.maxListed(),
                options.memoryBudgetBytes(),
                options.spillDir());
        Corrections corrections = Corrections.open(options)) {
      tally = engine.tally();
      // 1. the stream's record of what it left out
      for (String topic : List.of(job.topics().late(), job.topics().dlq())) {
        boolean late = topic.equals(job.topics().late());
        List<TopicScan.Range> ranges =
            TopicScan.plan(consumer, topic, fromMs - reachMs - marginMs, Long.MAX_VALUE, TIMEOUT);
        TopicScan.read(
            consumer,
            topic,
            ranges,
            ReconcileProgress.Phase.SIDE_TOPICS,
            r -> engine.side(r, late),
            progress,
            options.stallTimeout());
      }
      engine.sealSide();
      if (tally.sideRecordsWithoutSource > 0) {
        warnings.add(
            tally.sideRecordsWithoutSource
                + " side-topic records carry no skewer.source.* headers: they cannot be matched"
                + " to input records");
      }

      // 2. the streamed results starting inside the range
      TopicScan.read(
          consumer,
          job.topics().results(),
          TopicScan.plan(
              consumer, job.topics().results(), fromMs - marginMs, Long.MAX_VALUE, TIMEOUT),
          ReconcileProgress.Phase.RESULTS,
          engine::result,
          progress,
          options.stallTimeout());

      // 3. the input
      String events = job.topics().events();
      int sourcePartitions = TopicScan.partitions(consumer, events, TIMEOUT);
      List<TopicScan.Range> ranges =
          TopicScan.plan(
              consumer, events, fromMs - reachMs - marginMs, toMs + reachMs + marginMs, TIMEOUT);
      for (TopicScan.Range r : ranges) {
        inputRanges.add(new ReconcileReport.InputRange(r.partition(), r.start(), r.end()));
      }
      TopicScan.read(
          consumer,
          events,
          ranges,
          ReconcileProgress.Phase.EVENTS,
          engine::event,
          progress,
          options.stallTimeout());

      // 4. key by key: recompute, compare, correct
      engine.finish(sourcePartitions, corrections == null ? null : corrections::send, progress);
      if (corrections != null) {
        tally.correctionsWritten = corrections.finish();
      }
      memory = engine.memory();
    }
    ReconcileReport report =
        new ReconcileReport(
            job.name(),
            describe(shape),
            fromMs,
            toMs,
            marginMs,
            inputRanges,
            tally.totals(),
            tally.differences,
            tally.sketchFlags,
            tally.accountingIssues,
            tally.truncated(),
            memory,
            options.correctionsTopic(),
            warnings,
            Duration.ofNanos(System.nanoTime() - startNs));
    LOG.debug(
        "reconcile job={} from={} to={} status={} expected={} differences={}",
        job.name(),
        options.from(),
        options.to(),
        report.status(),
        report.totals().resultsExpected(),
        report.differences().size());
    return report;
  }

  private static String describe(WindowShape shape) {
    if (shape instanceof WindowShape.Hopping h) {
      return "hopping " + h.sizeMs() + "ms/" + h.hopMs() + "ms";
    }
    if (shape instanceof WindowShape.Session s) {
      return "session gap " + s.gapMs() + "ms";
    }
    return "tumbling";
  }

  /** The corrections producer: result key → corrected result, acknowledged at {@link #finish}. */
  private static final class Corrections implements AutoCloseable {
    private final KafkaProducer<String, byte[]> producer;
    private final String topic;
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicReference<Exception> firstError = new AtomicReference<>();

    private Corrections(KafkaProducer<String, byte[]> producer, String topic) {
      this.producer = producer;
      this.topic = topic;
    }

    /** Null when the options ask for no corrections; else a producer on an existing topic. */
    static Corrections open(ReconcileOptions options) {
      String topic = options.correctionsTopic();
      if (topic == null) {
        return null;
      }
      try (Admin admin = Admin.create(options.kafka().adminConfig())) {
        int partitions =
            admin
                .describeTopics(List.of(options.job().topics().results()))
                .allTopicNames()
                .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                .get(options.job().topics().results())
                .partitions()
                .size();
        NewTopic t =
            new NewTopic(topic, partitions, options.job().topics().replicationFactor())
                .configs(
                    Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
        try {
          admin.createTopics(List.of(t)).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException)) {
            throw new IllegalStateException(
                "cannot create the corrections topic '" + topic + "': " + e.getCause(), e);
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while creating topic " + topic, e);
      } catch (ExecutionException | TimeoutException e) {
        throw new IllegalStateException(
            "cannot describe the results topic '"
                + options.job().topics().results()
                + "': "
                + e.getCause(),
            e);
      }
      Map<String, Object> config = options.kafka().producerConfig();
      config.putIfAbsent("client.id", "skewer-reconcile-corrections");
      return new Corrections(
          new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer()), topic);
    }

    void send(String resultKey, byte[] value) {
      producer.send(
          new ProducerRecord<>(topic, resultKey, value),
          (md, e) -> {
            if (e == null) {
              acknowledged.incrementAndGet();
            } else {
              failed.incrementAndGet();
              firstError.compareAndSet(null, e);
            }
          });
    }

    /** Waits for every send; returns how many were written. */
    long finish() {
      producer.flush();
      if (failed.get() > 0) {
        throw new IllegalStateException(
            failed.get()
                + " corrections could not be written to '"
                + topic
                + "': "
                + firstError.get());
      }
      return acknowledged.get();
    }

    @Override
    public void close() {
      producer.close(Duration.ofSeconds(10));
    }
  }
}

package dev.skewer.reconcile;

import dev.skewer.core.event.DecodedEvent;
import dev.skewer.core.event.DlqReason;
import dev.skewer.core.event.EventDecoder;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.window.SliceAssigner;
import dev.skewer.core.window.WindowShape;
import dev.skewer.reconcile.internal.ExternalSorter;
import dev.skewer.reconcile.internal.KeyReconciler;
import dev.skewer.reconcile.internal.SideIndex;
import dev.skewer.reconcile.internal.SortRecord;
import dev.skewer.reconcile.internal.Tally;
import dev.skewer.reconcile.internal.TopicScan;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.header.Header;
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
 *       recomputed through the node's and coordinator's cores and compared ({@link KeyReconciler}).
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
    // sessions: the events a gap either side decide where sessions of the range start and end
    long reachMs = shape instanceof WindowShape.Session s ? s.gapMs() : 0;
    Tally tally = new Tally(options.maxListed());
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
    SideIndex side = new SideIndex();
    ReconcileReport.Memory memory;
    try (KafkaConsumer<byte[], byte[]> consumer =
            new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        ExternalSorter sorter =
            new ExternalSorter(SortRecord.ORDER, options.memoryBudgetBytes(), options.spillDir());
        Corrections corrections = Corrections.open(options)) {
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
            r -> indexSide(r, late, job.topics().events(), side, tally),
            progress,
            options.stallTimeout());
      }
      side.seal();
      if (tally.sideRecordsWithoutSource > 0) {
        warnings.add(
            tally.sideRecordsWithoutSource
                + " side-topic records carry no skewer.source.* headers: they cannot be matched"
                + " to input records");
      }

      // 2. the streamed results starting inside the range
      SortRecord.Writer writer = new SortRecord.Writer();
      String keyField = job.output().keyField();
      com.fasterxml.jackson.databind.ObjectMapper json =
          new com.fasterxml.jackson.databind.ObjectMapper();
      TopicScan.read(
          consumer,
          job.topics().results(),
          TopicScan.plan(
              consumer, job.topics().results(), fromMs - marginMs, Long.MAX_VALUE, TIMEOUT),
          ReconcileProgress.Phase.RESULTS,
          r -> {
            if (r.value() == null) {
              return; // a tombstone
            }
            com.fasterxml.jackson.databind.JsonNode root;
            try {
              root = json.readTree(r.value());
            } catch (java.io.IOException e) {
              tally.resultsUnreadable++;
              return;
            }
            Long start = KeyReconciler.startOf(root);
            com.fasterxml.jackson.databind.JsonNode key = root.path(keyField);
            if (start == null || !key.isValueNode() || key.isNull()) {
              tally.resultsUnreadable++;
              return;
            }
            if (start >= fromMs && start < toMs) {
              sorter.add(writer.result(key.asText(), r.partition(), r.offset(), r.value()));
            }
          },
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
      Classifier classifier =
          new Classifier(job, side, tally, sorter, writer, fromMs, toMs, reachMs);
      TopicScan.read(
          consumer,
          events,
          ranges,
          ReconcileProgress.Phase.EVENTS,
          classifier::accept,
          progress,
          options.stallTimeout());

      // 4. key by key: recompute, compare, correct
      KeyReconciler keys =
          new KeyReconciler(
              job,
              sourcePartitions,
              fromMs,
              toMs,
              options.sigmas(),
              tally,
              corrections == null ? null : corrections::send);
      merge(sorter, keys, job, progress);
      if (corrections != null) {
        tally.correctionsWritten = corrections.finish();
      }
      memory =
          new ReconcileReport.Memory(
              options.memoryBudgetBytes(),
              sorter.records(),
              sorter.spilledRecords(),
              sorter.runsWritten(),
              sorter.spilledBytes(),
              sorter.peakBufferedBytes(),
              8 * side.size(),
              tally.peakKeyResults,
              tally.peakKeyEvents);
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
    LOG.info(
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

  private static void indexSide(
      ConsumerRecord<byte[], byte[]> r,
      boolean late,
      String eventsTopic,
      SideIndex side,
      Tally tally) {
    tally.sideRecords++;
    Header topic = r.headers().lastHeader("skewer.source.topic");
    Header partition = r.headers().lastHeader("skewer.source.partition");
    Header offset = r.headers().lastHeader("skewer.source.offset");
    if (topic == null || partition == null || offset == null) {
      tally.sideRecordsWithoutSource++;
      return;
    }
    if (!eventsTopic.equals(new String(topic.value(), StandardCharsets.UTF_8))) {
      return; // another job's input
    }
    int p;
    long o;
    try {
      p = Integer.parseInt(new String(partition.value(), StandardCharsets.UTF_8));
      o = Long.parseLong(new String(offset.value(), StandardCharsets.UTF_8));
    } catch (NumberFormatException e) {
      tally.sideRecordsWithoutSource++;
      return;
    }
    int code;
    if (late) {
      code = SideIndex.LATE;
    } else {
      Header reason = r.headers().lastHeader(DlqReason.HEADER);
      code =
          SideIndex.dlqCode(
              reason == null
                  ? null
                  : DlqReason.ofCode(new String(reason.value(), StandardCharsets.UTF_8)));
    }
    side.add(p, o, code);
  }

  private static void merge(
      ExternalSorter sorter,
      KeyReconciler keys,
      JobSpec job,
      Consumer<ReconcileProgress> progress) {
    long total = sorter.records();
    long startNs = System.nanoTime();
    long lastNs = startNs;
    long lastDone = 0;
    long done = 0;
    Iterator<byte[]> it = sorter.sorted();
    SortRecord.Reader reader = new SortRecord.Reader();
    SortRecord.Event event =
        new SortRecord.Event(job.input().numericFields().size(), job.input().dimensions().size());
    boolean started = false;
    while (it.hasNext()) {
      byte[] record = it.next();
      boolean sameKey = started && reader.sameKey(record);
      reader.read(record);
      if (!sameKey) {
        if (started) {
          keys.end();
        }
        keys.begin(reader.key());
        started = true;
      }
      switch (reader.type()) {
        case SortRecord.RESULT ->
            keys.result(reader.partition(), reader.offset(), reader.resultValue());
        case SortRecord.SIDE -> keys.side(reader.eventTimeMs());
        case SortRecord.EVENT -> {
          long t = reader.eventTimeMs();
          reader.event(event);
          keys.event(reader.partition(), reader.offset(), t, event);
        }
        default -> throw new IllegalStateException("unknown sort record type " + reader.type());
      }
      done++;
      long now = System.nanoTime();
      if (progress != null && now - lastNs >= 1_000_000_000L) {
        progress.accept(
            new ReconcileProgress(
                ReconcileProgress.Phase.MERGE,
                null,
                List.of(),
                done,
                total,
                (done - lastDone) * 1e9 / (now - lastNs),
                Duration.ofNanos(now - startNs)));
        lastNs = now;
        lastDone = done;
      }
    }
    if (started) {
      keys.end();
    }
    if (progress != null) {
      long now = System.nanoTime();
      progress.accept(
          new ReconcileProgress(
              ReconcileProgress.Phase.MERGE,
              null,
              List.of(),
              done,
              total,
              (done - lastDone) * 1e9 / Math.max(1, now - lastNs),
              Duration.ofNanos(now - startNs)));
    }
  }

  /** Decodes and routes input records: accounting, then the sorter. */
  private static final class Classifier {
    private final JobSpec job;
    private final SideIndex side;
    private final Tally tally;
    private final ExternalSorter sorter;
    private final SortRecord.Writer writer;
    private final long fromMs;
    private final long toMs;
    private final long reachMs;
    private final EventDecoder decoder;
    private final DecodedEvent event;

    Classifier(
        JobSpec job,
        SideIndex side,
        Tally tally,
        ExternalSorter sorter,
        SortRecord.Writer writer,
        long fromMs,
        long toMs,
        long reachMs) {
      this.job = job;
      this.side = side;
      this.tally = tally;
      this.sorter = sorter;
      this.writer = writer;
      this.fromMs = fromMs;
      this.toMs = toMs;
      this.reachMs = reachMs;
      this.decoder = new EventDecoder(job);
      this.event = DecodedEvent.forJob(job);
    }

    void accept(ConsumerRecord<byte[], byte[]> r) {
      tally.recordsRead++;
      int p = r.partition();
      long o = r.offset();
      int[] codes = side.lookup(p, o);
      DlqReason reason = decoder.decode(r.value(), event);
      boolean decodable = reason == null;
      long t = decodable ? event.eventTimeMs() : r.timestamp();
      boolean inRange = t >= fromMs && t < toMs;
      boolean late = false;
      int dlqCode = -1;
      for (int c : codes) {
        if (c == SideIndex.LATE) {
          late = true;
        } else {
          dlqCode = c;
        }
      }
      boolean dlq = dlqCode >= 0;
      if (inRange) {
        tally.eventsInRange++;
        if (late && dlq) {
          tally.eventsDoubleAccounted++;
          tally.issue(
              AccountingIssue.Kind.LATE_AND_DLQ, p, o, "both the late topic and the DLQ hold it");
        } else if (codes.length > 1) {
          tally.issue(
              AccountingIssue.Kind.DUPLICATE_SIDE_OUTPUT,
              p,
              o,
              (late ? "the late topic" : "the DLQ") + " holds it " + codes.length + " times");
        }
        if (late) {
          tally.eventsLate++;
        } else if (dlq) {
          tally.eventsDlq++;
        } else if (decodable) {
          tally.eventsAggregated++;
        }
      }
      if (!decodable) {
        if (inRange) {
          if (dlq) {
            DlqReason recorded = SideIndex.reason(dlqCode);
            if (recorded != reason) {
              tally.issue(
                  AccountingIssue.Kind.DLQ_REASON_MISMATCH,
                  p,
                  o,
                  "the DLQ says "
                      + (recorded == null ? "no known reason" : recorded.code())
                      + ", the decoder says "
                      + reason.code());
            }
          } else if (late) {
            tally.issue(
                AccountingIssue.Kind.UNDECODABLE_IN_LATE,
                p,
                o,
                "the decoder refuses it (" + reason.code() + ") but the late topic holds it");
          } else {
            tally.eventsUnaccounted++;
            tally.issue(
                AccountingIssue.Kind.NOT_IN_DLQ,
                p,
                o,
                "the decoder refuses it (" + reason.code() + ") and no DLQ record names it");
          }
        }
        return;
      }
      boolean needed = t >= fromMs - reachMs && t < toMs + reachMs;
      if (late || dlq) {
        if (inRange && dlq && !late) {
          DlqReason recorded = SideIndex.reason(dlqCode);
          if (recorded != null
              && recorded != DlqReason.FUTURE_TIME
              && recorded != DlqReason.INVALID_VALUE) {
            tally.issue(
                AccountingIssue.Kind.DLQ_REASON_MISMATCH,
                p,
                o,
                "the DLQ says " + recorded.code() + ", the decoder accepts it");
          }
        }
        if (needed) {
          sorter.add(
              writer.side(event.key(), p, o, t, late ? SortRecord.SIDE_LATE : SortRecord.SIDE_DLQ));
        }
        return;
      }
      if (needed) {
        sorter.add(
            writer.event(
                event.key(),
                p,
                o,
                t,
                event.numeric(),
                event.distinctItem(),
                event.frequencyItem(),
                event.quantileValue(),
                event.dimensions()));
      }
    }
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
                .get(TIMEOUT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
                .get(options.job().topics().results())
                .partitions()
                .size();
        NewTopic t =
            new NewTopic(topic, partitions, options.job().topics().replicationFactor())
                .configs(
                    Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
        try {
          admin
              .createTopics(List.of(t))
              .all()
              .get(TIMEOUT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException)) {
            throw new IllegalStateException(
                "cannot create the corrections topic '" + topic + "': " + e.getCause(), e);
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while creating topic " + topic, e);
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
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

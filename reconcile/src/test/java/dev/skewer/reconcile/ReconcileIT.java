package dev.skewer.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skewer.coordinator.merge.FinalResult;
import dev.skewer.coordinator.merge.WindowMerger;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.result.ResultFormatter;
import dev.skewer.core.wire.Partial;
import dev.skewer.core.wire.PartialsMessage;
import dev.skewer.core.wire.Watermark;
import dev.skewer.core.wire.WireCodec;
import dev.skewer.loadgen.reference.ShapeReference;
import dev.skewer.testkit.job.JobYaml;
import dev.skewer.testkit.kafka.BrokerFixture;
import dev.skewer.testkit.kafka.TopicReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reconciliation on a real KRaft broker against the real stream (2 nodes, 1 coordinator, 4 input
 * and 2 partials partitions): for tumbling, hopping and session jobs a clean run reconciles with
 * zero differences and every event accounted for (late events within and beyond lateness, malformed
 * events, salted keys); a result tampered on the topic, the results of a Partial lost between node
 * and coordinator, and a tiny memory budget are each reported exactly.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReconcileIT {

  private static final String SENTINEL = "zz-sentinel";
  private static final ObjectMapper JSON = new ObjectMapper();

  @RegisterExtension static final BrokerFixture broker = BrokerFixture.perClass();
  @TempDir Path spill;

  /** The common job with watermark delay 1 s. */
  private static JobSpec job(JobYaml job) {
    return broker.provision(job.delay(Duration.ofSeconds(1)));
  }

  /** What a run sent: the range to check and the brute-force reference. */
  private record Sent(Instant from, Instant to, ShapeReference reference) {}

  @Test
  void shouldReconcileTumblingWindowsAndReportATamperedResultExactly() throws Exception {
    JobSpec job =
        job(
            JobYaml.named("rtumbling")
                .tumbling(Duration.ofSeconds(5))
                .allowedLateness(Duration.ofSeconds(3)));
    Sent sent = runStream(job, ShapeReference.tumbling(5_000, 1_000, 3_000, 4), false, 9_000);
    ReconcileOptions options = ReconcileOptions.of(job, broker.settings(), sent.from(), sent.to());
    ReconcileReport clean = awaitMatch(options);
    assertClean(clean, sent, false);

    // a budget far below the data gives the same answer
    ReconcileReport tight = Reconciler.run(options.withMemoryBudget(64 << 10, spill), null);
    assertThat(tight.memory().spillRuns()).isPositive();
    assertThat(tight.totals()).isEqualTo(clean.totals());
    assertThat(tight.exitCode()).isEqualTo(ExitCode.MATCH);

    // when a result in the range is rewritten on the topic with a wrong count and sum
    List<ResultsReader.Result> latest =
        ResultsReader.read(
            broker.settings(),
            new ResultsReader.Query(job.topics().results(), "key", "k7", null, false),
            null,
            Duration.ofSeconds(30));
    ResultsReader.Result victim =
        latest.stream()
            .filter(r -> r.startMs() >= sent.from().toEpochMilli() + 10_000)
            .findFirst()
            .orElseThrow();
    ObjectNode tampered = (ObjectNode) JSON.readTree(victim.json());
    ObjectNode value = (ObjectNode) tampered.get("value");
    value.put("event_count", victim.eventCount() + 2);
    value.put("revision", victim.revision() + 1);
    produce(job.topics().results(), victim.resultKey(), JSON.writeValueAsBytes(tampered));

    // then exactly that result is reported, and its correction is written
    ReconcileReport report =
        Reconciler.run(
            options.withCorrections(ReconcileOptions.defaultCorrectionsTopic(job)), null);
    assertThat(report.differences()).hasSize(1);
    ResultDifference d = report.differences().get(0);
    assertThat(d.resultKey()).isEqualTo(victim.resultKey());
    assertThat(d.kind()).isEqualTo(ResultDifference.Kind.MISMATCH);
    assertThat(d.streamedCount() - d.expectedCount()).isEqualTo(2);
    assertThat(d.fields())
        .extracting(ResultDifference.FieldDifference::field)
        .containsExactly("event_count");
    assertThat(report.totals().resultsMatching()).isEqualTo(clean.totals().resultsMatching() - 1);
    assertThat(report.totals().eventsUnaccounted()).isZero();
    assertThat(report.totals().eventsDoubleAccounted() + report.totals().eventsUnexpected())
        .isEqualTo(2);
    assertThat(report.exitCode()).isEqualTo(ExitCode.DIFFERENCES);
    assertThat(report.totals().correctionsWritten()).isEqualTo(1);
    List<ResultsReader.Result> corrections =
        ResultsReader.read(
            broker.settings(),
            new ResultsReader.Query(
                ReconcileOptions.defaultCorrectionsTopic(job), "key", "k7", null, false),
            null,
            Duration.ofSeconds(30));
    assertThat(corrections).hasSize(1);
    assertThat(corrections.get(0).resultKey()).isEqualTo(victim.resultKey());
    assertThat(corrections.get(0).eventCount()).isEqualTo(victim.eventCount());
    assertThat(corrections.get(0).revision()).isEqualTo(victim.revision() + 2);
    assertThat(JSON.readTree(corrections.get(0).json()).path("value").path("source").asText())
        .isEqualTo("batch");
    System.err.printf("tumbling: %s%n", report.summaryTable());
  }

  @Test
  void shouldReconcileHoppingWindowsAndReportTheResultsOfALostPartialExactly() throws Exception {
    JobSpec job =
        job(
            JobYaml.named("rhopping")
                .hopping(Duration.ofSeconds(10), Duration.ofSeconds(2))
                .allowedLateness(Duration.ofSeconds(3)));
    Sent sent =
        // an event is late only past lateness for all its windows: up to size + 3 x lateness behind
        runStream(job, ShapeReference.hopping(10_000, 2_000, 1_000, 3_000, 4), false, 19_000);
    ReconcileOptions options = ReconcileOptions.of(job, broker.settings(), sent.from(), sent.to());
    assertClean(awaitMatch(options), sent, false);

    // when the coordinator's merge is replayed without every version of one Partial, and the
    // results it then gives for that key are written as the latest revisions
    Lost lost = replayWithoutOnePartial(job, sent);

    // then exactly the windows containing that slice are reported, short by the Partial's events
    ReconcileReport report = Reconciler.run(options, null);
    assertThat(report.differences())
        .extracting(ResultDifference::resultKey)
        .containsExactlyInAnyOrderElementsOf(lost.resultKeys());
    assertThat(lost.resultKeys()).hasSize(5); // size / hop windows contain one 2 s slice
    for (ResultDifference d : report.differences()) {
      assertThat(d.expectedCount() - d.streamedCount()).isEqualTo(lost.events());
    }
    assertThat(report.totals().eventsUnexpected()).isZero();
    assertThat(report.exitCode()).isEqualTo(ExitCode.DIFFERENCES);
  }

  @Test
  void shouldReconcileSessionsWithLateEventsAccountedFor() throws Exception {
    JobSpec job =
        job(
            JobYaml.named("rsessions")
                .session(Duration.ofSeconds(2))
                .allowedLateness(Duration.ofSeconds(10)));
    Sent sent = runStream(job, ShapeReference.sessions(2_000, 1_000, 10_000, 4), true, 30_000);
    ReconcileReport report =
        awaitMatch(ReconcileOptions.of(job, broker.settings(), sent.from(), sent.to()));
    assertClean(report, sent, true);
  }

  private void assertClean(ReconcileReport report, Sent sent, boolean sessions) {
    ReconcileReport.Totals t = report.totals();
    System.err.print(report.summaryTable());
    assertThat(report.exitCode()).isEqualTo(ExitCode.MATCH);
    assertThat(report.differences()).isEmpty();
    assertThat(report.accountingIssues()).isEmpty();
    long from = sent.from().toEpochMilli();
    long to = sent.to().toEpochMilli();
    long covered =
        sent.reference().results().values().stream()
            .filter(r -> r.startMs() >= from && (sessions ? r.endMs() + 1 : r.endMs()) <= to)
            .count();
    assertThat(t.resultsExpected()).as("the brute-force reference's results").isEqualTo(covered);
    assertThat(t.resultsMatching()).isEqualTo(covered);
    assertThat(t.eventsLate()).as("events beyond lateness, in the late topic").isPositive();
    assertThat(t.eventsDlq()).as("malformed events, in the DLQ").isPositive();
    assertThat(t.eventsUnaccounted()).isZero();
    assertThat(t.eventsDoubleAccounted()).isZero();
    assertThat(t.eventsUnexpected()).isZero();
    assertThat(t.eventsAggregated() + t.eventsLate() + t.eventsDlq()).isEqualTo(t.eventsInRange());
    assertThat(t.distinctChecked()).isEqualTo(covered);
  }

  /** Reconciles until the stream has caught up (exit 0), failing with the last report. */
  private ReconcileReport awaitMatch(ReconcileOptions options) {
    ReconcileReport[] last = new ReconcileReport[1];
    try {
      await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofSeconds(3))
          .until(
              () -> {
                last[0] = Reconciler.run(options, null);
                return last[0].exitCode() == ExitCode.MATCH;
              });
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(
          last[0] == null ? "no report" : last[0].summaryTable() + last[0].toJsonText(), e);
    }
    return last[0];
  }

  /**
   * Runs the stream over 24,000 events (~60 s of event time ending ~9 min ago): disorder within the
   * delay, 2 % late within and beyond lateness, malformed records, keys salted over up to 3
   * partitions; then a sentinel per partition. Returns the range: whole 10 s steps inside.
   */
  private Sent runStream(JobSpec job, ShapeReference reference, boolean sessions, long lateSpanMs)
      throws Exception {
    long first;
    long end;
    try (StreamCluster cluster = StreamCluster.start(job, broker.settings(), 2)) {
      Random random = new Random(11);
      long now = (System.currentTimeMillis() - 600_000) / 10_000 * 10_000;
      first = now;
      end = now;
      String topic = job.topics().events();
      try (KafkaProducer<byte[], byte[]> producer = producer()) {
        for (int i = 0; i < 24_000; i++) {
          now += random.nextInt(6);
          int k = Math.min(99, (int) Math.abs(random.nextGaussian() * 30));
          long t = now - random.nextInt(1_001);
          if (random.nextInt(100) < 2) {
            t = now - 1_000 - random.nextInt((int) lateSpanMs); // within and beyond lateness
          } else if (sessions && Math.floorMod(t / (1_500 + 40L * k), 2) == 1) {
            continue; // silences between sessions
          }
          int salt = random.nextInt(1 + k % 3); // hot keys spread over distinct partitions
          int partition = (k + salt) % 4;
          if (random.nextInt(300) == 0) {
            send(producer, topic, partition, now, "{\"key\": \"k" + k + "\", \"ts\": }");
            continue;
          }
          double value = 1 + random.nextInt(100);
          reference.accept(partition, "k" + k, t, value);
          send(
              producer,
              topic,
              partition,
              t,
              JSON.writeValueAsString(
                  Map.of(
                      "key", "k" + k, "ts", t, "value", value, "user", "u" + random.nextInt(400))));
          end = Math.max(end, t);
        }
        for (int p = 0; p < 4; p++) {
          send(
              producer,
              topic,
              p,
              end + 120_000,
              "{\"key\": \"" + SENTINEL + "\", \"ts\": " + (end + 120_000) + ", \"value\": 1}");
        }
        producer.flush();
      }
      assertThat(sendFailure.get()).as("every event reached the broker").isNull();
      assertThat(reference.late()).as("the workload must exercise the late path").isPositive();
      // the stream finishes while the cluster runs: wait until its results have stopped changing
      long[] seen = {-1};
      await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofSeconds(4))
          .until(
              () -> {
                long n =
                    TopicReader.readAll(
                            broker.bootstrapServers(),
                            job.topics().results(),
                            Duration.ofSeconds(20))
                        .stream()
                        .filter(
                            r -> new String(r.key(), StandardCharsets.UTF_8).startsWith(SENTINEL))
                        .count();
                boolean done = n > 0 && n == seen[0];
                seen[0] = n;
                return done;
              });
      assertThat(cluster.sendFailures()).isZero();
    }
    long from = (first / 10_000 + 2) * 10_000;
    long to = (end / 10_000 - 1) * 10_000;
    return new Sent(Instant.ofEpochMilli(from), Instant.ofEpochMilli(to), reference);
  }

  /** The result keys a lost Partial changed and the events it carried. */
  private record Lost(List<String> resultKeys, long events) {}

  /**
   * Picks a Partial of key k5 from source partition of its slice in the middle of the range, runs
   * the coordinator's merger over the partials topic partition holding k5 without any version of
   * that Partial, and writes the merger's results for k5 that then differ as new revisions.
   */
  private Lost replayWithoutOnePartial(JobSpec job, Sent sent) throws Exception {
    String key = "k5";
    List<ConsumerRecord<byte[], byte[]>> partials =
        TopicReader.readAll(
            broker.bootstrapServers(), job.topics().partials(), Duration.ofSeconds(30));
    long middle = (sent.from().toEpochMilli() + sent.to().toEpochMilli()) / 2 / 2_000 * 2_000;
    int q = -1;
    int source = -1;
    long events = 0;
    for (ConsumerRecord<byte[], byte[]> r : partials) {
      PartialsMessage m = WireCodec.decode(r.value());
      if (m instanceof Partial p && p.key().equals(key) && p.sliceStartMs() == middle) {
        if (source == -1 || p.sourcePartition() == source) {
          q = r.partition();
          source = p.sourcePartition();
          events = Math.max(events, p.version()); // the version is the events folded in
        }
      }
    }
    assertThat(source).as("a Partial of %s for slice %d", key, middle).isNotNegative();
    WindowMerger merger =
        new WindowMerger(job.window(), 4, job.allowedLateness().toMillis(), job.toSketchSpec());
    Map<String, FinalResult> replayed = new TreeMap<>();
    ResultFormatter formatter = new ResultFormatter(job);
    for (ConsumerRecord<byte[], byte[]> r : partials) {
      if (r.partition() != q) {
        continue;
      }
      // unnumbered (seq -1): the coordinator would notice a numbered message missing and hold the
      // source back; this simulates a Partial lost without a trace
      PartialsMessage m = WireCodec.decode(r.value());
      if (m instanceof Partial p) {
        if (!(p.key().equals(key) && p.sliceStartMs() == middle && p.sourcePartition() == source)) {
          merger.accept(p.withSeq(-1));
        }
      } else {
        merger.accept(((Watermark) m).withSeq(-1));
      }
      merger.advance(
          res -> {
            if (res.key().equals(key)) {
              replayed.put(formatter.resultKey(key, res.windowStartMs()), res);
            }
          });
    }
    Map<String, ResultsReader.Result> streamed = new HashMap<>();
    for (ResultsReader.Result r :
        ResultsReader.read(
            broker.settings(),
            new ResultsReader.Query(job.topics().results(), "key", key, null, false),
            null,
            Duration.ofSeconds(30))) {
      streamed.put(r.resultKey(), r);
    }
    List<String> changed = new ArrayList<>();
    for (Map.Entry<String, FinalResult> e : replayed.entrySet()) {
      ResultsReader.Result s = streamed.get(e.getKey());
      FinalResult r = e.getValue();
      if (s != null && s.eventCount() != r.aggregate().count()) {
        changed.add(e.getKey());
        produce(
            job.topics().results(),
            e.getKey(),
            formatter.format(
                key,
                r.windowStartMs(),
                r.windowEndMs(),
                r.aggregate(),
                s.revision() + 1,
                r.dimensions(),
                null));
      }
    }
    return new Lost(changed, events);
  }

  private void produce(String topic, String key, byte[] value) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = producer()) {
      producer
          .send(new ProducerRecord<>(topic, key.getBytes(StandardCharsets.UTF_8), value))
          .get(30, TimeUnit.SECONDS);
    }
  }

  private KafkaProducer<byte[], byte[]> producer() {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    // ordered and acknowledged; idempotence off: on this shared machine the idempotent producer
    // saw OutOfOrderSequenceExceptions under load and dropped batches
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
    props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
  }

  private final AtomicReference<Exception> sendFailure = new AtomicReference<>();

  private void send(
      KafkaProducer<byte[], byte[]> producer, String topic, int partition, long t, String json) {
    producer.send(
        new ProducerRecord<>(topic, partition, t, null, json.getBytes(StandardCharsets.UTF_8)),
        (md, e) -> {
          if (e != null) {
            sendFailure.compareAndSet(null, e);
          }
        });
  }
}

package dev.skewer.reconcile.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import dev.skewer.loadgen.reference.ShapeReference;
import dev.skewer.reconcile.AccountingIssue;
import dev.skewer.reconcile.ExitCode;
import dev.skewer.reconcile.ReconcileReport;
import dev.skewer.reconcile.ResultDifference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine against a stream built from the same cores without I/O ({@link MiniStream}): clean
 * runs reconcile to zero differences for every window shape, and each kind of damage — a tampered
 * result, a lost Partial, a DLQ record missing, an event both late and counted — is reported
 * exactly, at any memory budget.
 */
class ReconcileEngineTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long BASE = 1_700_000_000_000L;
  private static final long FROM = BASE + 10_000;
  private static final long TO = BASE + 40_000;

  @TempDir Path spill;

  private static JobSpec job(String window) {
    return JobSpecLoader.parse(
        """
        name: t
        input:
          keyPointer: /key
          timePointer: /ts
          numericFields:
            - name: value
              pointer: /value
          distinctPointer: /user
          quantilePointer: /value
          frequencyPointer: /item
        window: %s
        watermark:
          delay: 1s
        allowedLateness: 2s
        output:
          heavyHitters: 3
          quantiles: [0.5, 0.99]
        """
            .formatted(window),
        Map.of());
  }

  /** A workload with disorder, late events within and beyond lateness, salting and bad records. */
  private static MiniStream stream(JobSpec job, ShapeReference reference, boolean sessions) {
    MiniStream s = new MiniStream(job, 3, 50);
    Random random = new Random(7);
    long now = BASE;
    for (int i = 0; i < 12_000; i++) {
      now += random.nextInt(9);
      int k = Math.min(40, (int) Math.abs(random.nextGaussian() * 12));
      long t = now - random.nextInt(1_000);
      if (random.nextInt(100) < 2) {
        t = now - 1_000 - random.nextInt(9_000); // within and beyond the 2 s lateness
      } else if (sessions && Math.floorMod(t / (700 + 60L * k), 2) == 1) {
        continue; // silences between sessions
      }
      // some keys salted over 2 partitions (the salt is in the record key; the event's key is not)
      int p = Math.floorMod(k + random.nextInt(1 + k % 2), 3);
      if (random.nextInt(400) == 0) {
        s.send(p, "{\"key\": \"k" + k + "\", \"ts\": ", now); // malformed
        continue;
      }
      double value = 1 + random.nextInt(500);
      String json =
          "{\"key\": \"%s\", \"ts\": %d, \"value\": %s, \"user\": \"u%d\", \"item\": \"i%d\"}"
              .formatted("k" + k, t, value, random.nextInt(300), random.nextInt(8));
      int lateBefore = s.late.size();
      s.send(p, json, t);
      boolean accepted = s.late.size() == lateBefore;
      if (reference != null) {
        assertThat(reference.accept(p, "k" + k, t, value)).isEqualTo(accepted);
      }
    }
    s.finish();
    return s;
  }

  private ReconcileReport reconcile(MiniStream s, long budget, Map<String, byte[]> corrections) {
    long startNs = System.nanoTime();
    try (ReconcileEngine engine = new ReconcileEngine(s.job, FROM, TO, 3, 10_000, budget, spill)) {
      s.late.forEach(r -> engine.side(r, true));
      s.dlq.forEach(r -> engine.side(r, false));
      engine.sealSide();
      s.results.forEach(engine::result);
      s.input.forEach(engine::event);
      engine.finish(s.partitions, corrections == null ? null : corrections::put, null);
      Tally t = engine.tally();
      return new ReconcileReport(
          s.job.name(),
          "test",
          FROM,
          TO,
          0,
          List.of(),
          t.totals(),
          t.differences,
          t.sketchFlags,
          t.accountingIssues,
          t.truncated(),
          engine.memory(),
          null,
          List.of(),
          Duration.ofNanos(System.nanoTime() - startNs));
    }
  }

  private static long covered(ShapeReference reference, boolean sessions) {
    return reference.results().values().stream()
        .filter(r -> r.startMs() >= FROM && (sessions ? r.endMs() + 1 : r.endMs()) <= TO)
        .count();
  }

  @Test
  void shouldReconcileCleanTumblingRunWithZeroDifferences() {
    JobSpec job = job("{type: tumbling, size: 2s}");
    ShapeReference reference = ShapeReference.tumbling(2_000, 1_000, 2_000, 3);
    MiniStream s = stream(job, reference, false);

    ReconcileReport report = reconcile(s, 64L << 20, null);

    assertClean(report, s);
    assertThat(report.totals().resultsExpected()).isEqualTo(covered(reference, false));
  }

  @Test
  void shouldReconcileCleanHoppingRunWithZeroDifferences() {
    JobSpec job = job("{type: hopping, size: 6s, hop: 2s}");
    ShapeReference reference = ShapeReference.hopping(6_000, 2_000, 1_000, 2_000, 3);
    MiniStream s = stream(job, reference, false);

    ReconcileReport report = reconcile(s, 64L << 20, null);

    assertClean(report, s);
    assertThat(report.totals().resultsExpected()).isEqualTo(covered(reference, false));
  }

  @Test
  void shouldReconcileCleanSessionRunWithZeroDifferences() {
    JobSpec job = job("{type: session, gap: 1s}");
    ShapeReference reference = ShapeReference.sessions(1_000, 1_000, 2_000, 3);
    MiniStream s = stream(job, reference, true);

    ReconcileReport report = reconcile(s, 64L << 20, null);

    assertClean(report, s);
    assertThat(report.totals().resultsExpected()).isEqualTo(covered(reference, true));
  }

  private static void assertClean(ReconcileReport report, MiniStream s) {
    assertThat(report.differences()).isEmpty();
    assertThat(report.accountingIssues()).isEmpty();
    assertThat(report.sketchFlags()).isEmpty();
    ReconcileReport.Totals t = report.totals();
    assertThat(t.resultsExpected()).isPositive();
    assertThat(t.resultsMatching()).isEqualTo(t.resultsExpected());
    assertThat(t.resultsStreamed()).isEqualTo(t.resultsExpected());
    assertThat(t.eventsLate()).as("the workload must exercise the late path").isPositive();
    assertThat(t.eventsDlq()).as("the workload must exercise the DLQ").isPositive();
    assertThat(t.eventsUnaccounted()).isZero();
    assertThat(t.eventsDoubleAccounted()).isZero();
    assertThat(t.eventsUnexpected()).isZero();
    assertThat(t.eventsAggregated() + t.eventsLate() + t.eventsDlq()).isEqualTo(t.eventsInRange());
    assertThat(t.distinctChecked()).isEqualTo(t.resultsExpected());
    assertThat(t.quantilesChecked()).isEqualTo(2 * t.resultsExpected());
    assertThat(t.heavyHittersChecked()).isPositive();
    assertThat(report.exitCode()).isEqualTo(ExitCode.MATCH);
    assertThat(s.late.size() + s.dlq.size()).isPositive();
  }

  @Test
  void shouldReportExactlyTheTamperedResult() throws Exception {
    // given a clean tumbling run, and then one result in the range rewritten on the topic
    JobSpec job = job("{type: tumbling, size: 2s}");
    MiniStream s = stream(job, null, false);
    ConsumerRecord<byte[], byte[]> victim = pickResultInRange(s, 3);
    String resultKey = new String(victim.key(), StandardCharsets.UTF_8);
    ObjectNode tampered = (ObjectNode) JSON.readTree(victim.value());
    ObjectNode value = (ObjectNode) tampered.get("value");
    long count = value.get("event_count").asLong();
    value.put("event_count", count + 1);
    value.put("sum_value", value.get("sum_value").asDouble() + 17);
    value.put("revision", value.get("revision").asInt() + 1);
    s.appendResult(resultKey, JSON.writeValueAsBytes(tampered));

    // when
    Map<String, byte[]> corrections = new HashMap<>();
    ReconcileReport report = reconcile(s, 64L << 20, corrections);

    // then exactly that result differs, in exactly those fields
    assertThat(report.differences()).hasSize(1);
    ResultDifference d = report.differences().get(0);
    assertThat(d.resultKey()).isEqualTo(resultKey);
    assertThat(d.kind()).isEqualTo(ResultDifference.Kind.MISMATCH);
    assertThat(d.expectedCount()).isEqualTo(count);
    assertThat(d.streamedCount()).isEqualTo(count + 1);
    assertThat(d.fields())
        .extracting(ResultDifference.FieldDifference::field)
        .containsExactly("event_count", "sum_value");
    assertThat(report.totals().eventsUnaccounted()).isZero();
    assertThat(report.totals().eventsDoubleAccounted() + report.totals().eventsUnexpected())
        .isEqualTo(1);
    assertThat(report.exitCode()).isEqualTo(ExitCode.DIFFERENCES);

    // and the correction is the original result, one revision on, marked as the batch's
    assertThat(corrections).containsOnlyKeys(resultKey);
    ObjectNode corrected = (ObjectNode) JSON.readTree(corrections.get(resultKey));
    ObjectNode original = (ObjectNode) JSON.readTree(victim.value());
    assertThat(corrected.get("value").get("source").asText()).isEqualTo("batch");
    assertThat(corrected.get("value").get("revision").asInt())
        .isEqualTo(original.get("value").get("revision").asInt() + 2);
    ((ObjectNode) corrected.get("value")).remove(List.of("source", "revision"));
    ((ObjectNode) original.get("value")).remove("revision");
    assertThat(corrected).isEqualTo(original);
  }

  @Test
  void shouldFlagSketchEstimatesOutsideTheirErrorBars() throws Exception {
    // given a result whose distinct count is doubled and whose p50 is the maximum value
    JobSpec job = job("{type: tumbling, size: 2s}");
    MiniStream s = stream(job, null, false);
    ConsumerRecord<byte[], byte[]> victim = pickResultInRange(s, 4);
    String resultKey = new String(victim.key(), StandardCharsets.UTF_8);
    ObjectNode tampered = (ObjectNode) JSON.readTree(victim.value());
    ObjectNode value = (ObjectNode) tampered.get("value");
    ObjectNode distinct = (ObjectNode) value.get("distinct_user");
    distinct.put("estimate", distinct.get("estimate").asLong() * 2 + 5);
    ((ObjectNode) value.get("p50_value")).put("estimate", value.get("max_value").asDouble());
    s.appendResult(resultKey, JSON.writeValueAsBytes(tampered));

    // when
    ReconcileReport report = reconcile(s, 64L << 20, null);

    // then both estimates are flagged, nothing exact differs, and the exit code says so
    assertThat(report.differences()).isEmpty();
    assertThat(report.sketchFlags())
        .extracting(f -> f.resultKey() + " " + f.field())
        .containsExactlyInAnyOrder(resultKey + " distinct_user", resultKey + " p50_value");
    assertThat(report.totals().distinctFlagged()).isEqualTo(1);
    assertThat(report.totals().quantilesFlagged()).isEqualTo(1);
    assertThat(report.exitCode()).isEqualTo(ExitCode.SKETCHES_OUTSIDE_BOUNDS);
  }

  @Test
  void shouldReportExactlyTheResultsOfALostPartial() {
    for (String window :
        List.of("{type: tumbling, size: 2s}", "{type: hopping, size: 6s, hop: 2s}")) {
      // given a stream that lost every version of one (source, key, slice) Partial
      JobSpec job = job(window);
      MiniStream probe = stream(job, null, false);
      String key = "k3";
      long sliceStartMs = FROM + 8_000;
      MiniStream s = new MiniStream(job, 3, 50);
      s.dropPartials(
          p -> p.key().equals(key) && p.sliceStartMs() == sliceStartMs && p.sourcePartition() == 0);
      replay(probe, s);
      long lost = s.droppedCounts.values().stream().mapToLong(Long::longValue).sum();
      assertThat(lost).as("the Partial dropped carried events").isPositive();

      // when
      ReconcileReport report = reconcile(s, 64L << 20, null);

      // then exactly the results containing that slice, each short by the Partial's events
      boolean hopping = window.contains("hopping");
      List<String> affected = new ArrayList<>();
      for (long start = sliceStartMs - (hopping ? 4_000 : 0);
          start <= sliceStartMs;
          start += 2_000) {
        affected.add(key + "@" + start);
      }
      assertThat(report.differences())
          .extracting(ResultDifference::resultKey)
          .containsExactlyInAnyOrderElementsOf(affected);
      for (ResultDifference d : report.differences()) {
        assertThat(d.expectedCount() - d.streamedCount()).isEqualTo(lost);
        assertThat(d.fields())
            .extracting(ResultDifference.FieldDifference::field)
            .contains("event_count");
      }
      assertThat(report.totals().eventsUnaccounted()).isEqualTo(lost);
      assertThat(report.totals().eventsUnexpected()).isZero();
    }
  }

  /** Sends the input of {@code from} to {@code to} again (same partitions, timestamps, order). */
  private static void replay(MiniStream from, MiniStream to) {
    for (ConsumerRecord<byte[], byte[]> r : from.input) {
      to.send(r.partition(), new String(r.value(), StandardCharsets.UTF_8), r.timestamp());
    }
    to.finish();
  }

  @Test
  void shouldReportABadRecordMissingFromTheDlq() {
    JobSpec job = job("{type: tumbling, size: 2s}");
    MiniStream s = stream(job, null, false);
    ConsumerRecord<byte[], byte[]> lost =
        s.dlq.stream()
            .filter(r -> r.timestamp() >= FROM && r.timestamp() < TO)
            .findFirst()
            .orElseThrow();
    s.dlq.remove(lost);

    ReconcileReport report = reconcile(s, 64L << 20, null);

    assertThat(report.differences()).isEmpty();
    assertThat(report.accountingIssues()).hasSize(1);
    AccountingIssue issue = report.accountingIssues().get(0);
    assertThat(issue.kind()).isEqualTo(AccountingIssue.Kind.NOT_IN_DLQ);
    assertThat(issue.sourcePartition() + "/" + issue.sourceOffset())
        .isEqualTo(
            new String(lost.headers().lastHeader("skewer.source.partition").value())
                + "/"
                + new String(lost.headers().lastHeader("skewer.source.offset").value()));
    assertThat(report.totals().eventsUnaccounted()).isEqualTo(1);
    assertThat(report.exitCode()).isEqualTo(ExitCode.DIFFERENCES);
  }

  @Test
  void shouldReportAnEventBothInTheLateTopicAndInAResult() {
    // given an accepted event that the late topic also holds (a side output written twice over)
    JobSpec job = job("{type: tumbling, size: 2s}");
    MiniStream s = stream(job, null, false);
    ConsumerRecord<byte[], byte[]> accepted = null;
    for (ConsumerRecord<byte[], byte[]> r : s.input) {
      String json = new String(r.value(), StandardCharsets.UTF_8);
      boolean routed =
          s.late.stream().anyMatch(l -> sameSource(l, r))
              || s.dlq.stream().anyMatch(l -> sameSource(l, r));
      if (!routed
          && json.contains("\"k2\"")
          && r.timestamp() >= FROM + 4_000
          && r.timestamp() < TO - 4_000) {
        accepted = r;
        break;
      }
    }
    assertThat(accepted).isNotNull();
    ConsumerRecord<byte[], byte[]> copy = accepted;
    RecordHeaders h = new RecordHeaders();
    h.add("skewer.source.topic", job.topics().events().getBytes(StandardCharsets.UTF_8));
    h.add(
        "skewer.source.partition",
        Integer.toString(copy.partition()).getBytes(StandardCharsets.UTF_8));
    h.add("skewer.source.offset", Long.toString(copy.offset()).getBytes(StandardCharsets.UTF_8));
    s.late.add(MiniStream.record(job.topics().late(), 0, 999_999, 0, null, copy.value(), h));

    // when
    ReconcileReport report = reconcile(s, 64L << 20, null);

    // then its window is one event over, explained by the late topic
    long windowStart = Math.floorDiv(copy.timestamp(), 2_000) * 2_000;
    assertThat(report.differences())
        .extracting(ResultDifference::resultKey)
        .containsExactly("k2@" + windowStart);
    assertThat(
            report.differences().get(0).streamedCount()
                - report.differences().get(0).expectedCount())
        .isEqualTo(1);
    assertThat(report.totals().eventsDoubleAccounted()).isEqualTo(1);
    assertThat(report.totals().eventsUnexpected()).isZero();
    assertThat(report.totals().eventsUnaccounted()).isZero();
  }

  private static boolean sameSource(
      ConsumerRecord<byte[], byte[]> side, ConsumerRecord<byte[], byte[]> input) {
    return new String(side.headers().lastHeader("skewer.source.partition").value())
            .equals(Integer.toString(input.partition()))
        && new String(side.headers().lastHeader("skewer.source.offset").value())
            .equals(Long.toString(input.offset()));
  }

  @Test
  void shouldGiveTheSameAnswerWithABudgetFarBelowTheData() throws Exception {
    for (String window : List.of("{type: tumbling, size: 2s}", "{type: session, gap: 1s}")) {
      JobSpec job = job(window);
      MiniStream s = stream(job, null, window.contains("session"));
      ConsumerRecord<byte[], byte[]> victim = pickResultInRange(s, 5);
      ObjectNode tampered = (ObjectNode) JSON.readTree(victim.value());
      ((ObjectNode) tampered.get("value")).put("event_count", 1_000_000);
      s.appendResult(
          new String(victim.key(), StandardCharsets.UTF_8), JSON.writeValueAsBytes(tampered));

      ReconcileReport roomy = reconcile(s, 256L << 20, null);
      ReconcileReport tight = reconcile(s, 64 << 10, null);

      assertThat(roomy.memory().spillRuns()).isZero();
      assertThat(tight.memory().spillRuns()).as("a 64 KiB budget must spill").isGreaterThan(4);
      assertThat(tight.memory().peakBufferBytes()).isLessThan((64 << 10) + 4096);
      assertThat(tight.totals()).isEqualTo(roomy.totals());
      assertThat(tight.differences()).isEqualTo(roomy.differences());
      assertThat(tight.differences()).hasSize(1);
    }
  }

  /** The {@code n}-th result (by result key) with a window inside the range. */
  private static ConsumerRecord<byte[], byte[]> pickResultInRange(MiniStream s, int n)
      throws Exception {
    TreeMap<String, ConsumerRecord<byte[], byte[]>> inRange = new TreeMap<>();
    for (ConsumerRecord<byte[], byte[]> r : s.results) {
      var v = JSON.readTree(r.value()).get("value");
      long start =
          v.has("session_start_ms")
              ? v.get("session_start_ms").asLong()
              : v.get("window_start_ms").asLong();
      long end =
          v.has("session_end_ms")
              ? v.get("session_end_ms").asLong() + 1
              : v.get("window_end_ms").asLong();
      if (start >= FROM + 5_000 && end <= TO - 5_000 && v.get("event_count").asLong() > 0) {
        inRange.put(new String(r.key(), StandardCharsets.UTF_8), r); // the latest record
      }
    }
    return inRange.values().stream().skip(n).findFirst().orElseThrow();
  }

  @Test
  void shouldCountEveryInputRecordOfTheRangeOnce() {
    JobSpec job = job("{type: hopping, size: 6s, hop: 2s}");
    MiniStream s = stream(job, null, false);

    ReconcileReport report = reconcile(s, 64L << 20, null);

    long inRange =
        s.input.stream()
            .filter(
                r -> {
                  String json = new String(r.value(), StandardCharsets.UTF_8);
                  var m = Pattern.compile("\"ts\": (\\d+)").matcher(json);
                  long t =
                      m.find() && json.endsWith("}") ? Long.parseLong(m.group(1)) : r.timestamp();
                  return t >= FROM && t < TO;
                })
            .count();
    assertThat(report.totals().recordsRead()).isEqualTo(s.input.size());
    assertThat(report.totals().eventsInRange()).isEqualTo(inRange);
    assertThat(report.totals().eventsLate())
        .isEqualTo(
            s.late.stream()
                .filter(l -> s.input.stream().anyMatch(r -> sameSource(l, r) && inRangeEvent(r)))
                .count());
    assertThat(
            s.results.stream()
                .map(r -> new String(r.key(), StandardCharsets.UTF_8))
                .collect(Collectors.toSet()))
        .isNotEmpty();
  }

  private static boolean inRangeEvent(ConsumerRecord<byte[], byte[]> r) {
    String json = new String(r.value(), StandardCharsets.UTF_8);
    var m = Pattern.compile("\"ts\": (\\d+)").matcher(json);
    if (!m.find()) {
      return false;
    }
    long t = Long.parseLong(m.group(1));
    return t >= FROM && t < TO;
  }
}

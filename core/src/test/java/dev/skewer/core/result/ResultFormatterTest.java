package dev.skewer.core.result;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import dev.skewer.sketches.Aggregate;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ResultFormatterTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long START = 1_700_000_000_000L;
  private static final long END = START + 10_000;

  static final String JOB =
      "name: clicks\n"
          + "input:\n"
          + "  keyPointer: /ad\n"
          + "  timePointer: /ts\n"
          + "  numericFields: [{name: latency, pointer: /latency_ms}, {name: cost, pointer: /cost}]\n"
          + "  distinctPointer: /user/id\n"
          + "  quantilePointer: /latency_ms\n"
          + "  frequencyPointer: /country\n"
          + "  dimensions: [{name: channel, pointer: /channel}, {name: game, pointer: /game}]\n"
          + "window: {size: 10s}\n"
          + "output: {keyField: ad, quantiles: [0.5, 0.99, 0.999], heavyHitters: 2}\n";

  @Test
  void shouldWriteTheSeedSessionEnvelopeAndMarkSupersededSessions() throws Exception {
    // given the shipped session job
    JobSpec job = JobSpecLoader.load(Path.of("..", "examples", "sessions.yaml"), Map.of());
    Aggregate agg = Aggregate.empty(job.toSketchSpec());
    agg.update(new double[] {2.0, 0.5, -1.5}, null, null, Double.NaN);
    agg.update(new double[] {1.0, 3.0, 2.0}, null, null, Double.NaN);
    ResultFormatter formatter = new ResultFormatter(job);

    // when
    JsonNode r =
        JSON.readTree(
            formatter.format(
                "u1", START, START + 65_001, agg, 0, new String[] {"roulette", "web"}));
    JsonNode gone =
        JSON.readTree(
            formatter.format(
                "u1",
                START + 700_000,
                START + 710_000,
                Aggregate.empty(job.toSketchSpec()),
                1,
                null,
                formatter.resultKey("u1", START)));

    // then
    assertThat(r.get("event").asText()).isEqualTo("session");
    assertThat(r.get("user_id").asText()).isEqualTo("u1");
    assertThat(r.get("timestamp").asText()).isEqualTo("2023-11-14 22:13:20");
    JsonNode v = r.get("value");
    assertThat(fieldNames(v))
        .startsWith("session_start_ms", "session_end_ms", "event_count", "duration_ms");
    assertThat(v.get("session_end_ms").asLong()).isEqualTo(START + 65_000);
    assertThat(v.get("duration_ms").asLong()).isEqualTo(65_000);
    assertThat(v.get("event_count").asLong()).isEqualTo(2);
    assertThat(v.get("sum_stake").asDouble()).isEqualTo(3.0);
    assertThat(v.get("sum_win").asDouble()).isEqualTo(3.5);
    assertThat(v.get("sum_net").asDouble()).isEqualTo(0.5);
    assertThat(v.get("game_code").asText()).isEqualTo("roulette");
    assertThat(v.get("channel").asText()).isEqualTo("web");
    assertThat(v.has("superseded_by")).isFalse();
    assertThat(gone.get("value").get("event_count").asLong()).isZero();
    assertThat(gone.get("value").get("superseded_by").asText()).isEqualTo("u1@" + START);
    assertThat(gone.get("value").get("revision").asInt()).isEqualTo(1);
  }

  @Test
  void shouldWriteTheSeedEnvelopeWithEveryConfiguredMetric() throws Exception {
    // given
    JobSpec job = JobSpecLoader.parse(JOB, Map.of());
    Aggregate agg = Aggregate.empty(job.toSketchSpec());
    String[] countries = {"ie", "ie", "ie", "fr", "fr", "de"};
    for (int i = 0; i < countries.length; i++) {
      agg.update(
          new double[] {10 * (i + 1), Double.NaN}, "u" + (i % 4), countries[i], 10 * (i + 1));
    }

    // when
    byte[] bytes =
        new ResultFormatter(job).format("ad42", START, END, agg, 2, new String[] {"web", null});
    JsonNode r = JSON.readTree(bytes);

    // then
    assertThat(fieldNames(r))
        .containsExactly("event", "ad", "timestamp", "guarantee", "value", "user_attributes");
    assertThat(r.get("event").asText()).isEqualTo("clicks");
    assertThat(r.get("guarantee").asText()).isEqualTo("at_least_once");
    assertThat(r.get("ad").asText()).isEqualTo("ad42");
    assertThat(r.get("timestamp").asText()).isEqualTo("2023-11-14 22:13:20");
    assertThat(r.get("user_attributes").isObject()).isTrue();
    assertThat(r.get("user_attributes").size()).isZero();
    JsonNode v = r.get("value");
    assertThat(fieldNames(v))
        .containsExactly(
            "window_start_ms",
            "window_end_ms",
            "event_count",
            "sum_latency",
            "min_latency",
            "max_latency",
            "sum_cost",
            "distinct_user_id",
            "p50_latency_ms",
            "p99_latency_ms",
            "p99_9_latency_ms",
            "top_country",
            "channel",
            "revision");
    assertThat(v.get("window_start_ms").asLong()).isEqualTo(START);
    assertThat(v.get("window_end_ms").asLong()).isEqualTo(END);
    assertThat(v.get("event_count").asLong()).isEqualTo(6);
    assertThat(v.get("sum_latency").asDouble()).isEqualTo(210.0);
    assertThat(v.get("min_latency").asDouble()).isEqualTo(10.0);
    assertThat(v.get("max_latency").asDouble()).isEqualTo(60.0);
    assertThat(v.get("sum_cost").asDouble()).isZero();
    assertThat(v.get("distinct_user_id").get("estimate").asLong()).isEqualTo(4);
    assertThat(v.get("distinct_user_id").get("rse").asDouble()).isPositive();
    assertThat(v.get("p50_latency_ms").get("estimate").asDouble()).isBetween(30.0, 40.0);
    assertThat(v.get("p50_latency_ms").has("rank_error")).isTrue();
    assertThat(v.get("top_country")).hasSize(2);
    assertThat(v.get("top_country").get(0).get("item").asText()).isEqualTo("ie");
    assertThat(v.get("top_country").get(0).get("estimate").asLong()).isEqualTo(3);
    assertThat(v.get("top_country").get(0).get("error").asLong()).isZero();
    assertThat(v.get("top_country").get(1).get("item").asText()).isEqualTo("fr");
    assertThat(v.get("channel").asText()).isEqualTo("web");
    assertThat(v.get("revision").asInt()).isEqualTo(2);
  }

  @Test
  void shouldOmitMinMaxAndQuantilesWhenNoValueWasSeen() throws Exception {
    JobSpec job = JobSpecLoader.parse(JOB, Map.of());
    Aggregate agg = Aggregate.empty(job.toSketchSpec());
    agg.update(new double[] {Double.NaN, Double.NaN}, null, null, Double.NaN);

    JsonNode v =
        JSON.readTree(new ResultFormatter(job).format("k", START, END, agg, 0, null)).get("value");

    assertThat(fieldNames(v))
        .containsExactly(
            "window_start_ms",
            "window_end_ms",
            "event_count",
            "sum_latency",
            "sum_cost",
            "distinct_user_id",
            "top_country",
            "revision");
    assertThat(v.get("top_country")).isEmpty();
    assertThat(v.get("distinct_user_id").get("estimate").asLong()).isZero();
  }

  @Test
  void shouldWriteTheRollingSummaryOfTheSeedDocument() throws Exception {
    JobSpec job = JobSpecLoader.load(Path.of("..", "examples", "rolling-2min.yaml"), Map.of());
    Aggregate agg = Aggregate.empty(job.toSketchSpec());
    agg.update(new double[] {2.0, 0.5}, null, null, Double.NaN);
    agg.update(new double[] {3.0, 0.0}, null, null, Double.NaN);
    long start = 1_780_664_040_000L; // 2026-06-05 12:54:00 UTC

    JsonNode r =
        JSON.readTree(
            new ResultFormatter(job)
                .format("u1", start, start + 120_000, agg, 0, new String[] {"roulette", "web"}));

    assertThat(r.get("event").asText()).isEqualTo("session_summary");
    assertThat(r.get("user_id").asText()).isEqualTo("u1");
    assertThat(r.get("timestamp").asText()).isEqualTo("2026-06-05 12:54:00");
    JsonNode v = r.get("value");
    assertThat(v.get("event_count").asLong()).isEqualTo(2);
    assertThat(v.get("window_end_ms").asLong() - v.get("window_start_ms").asLong())
        .isEqualTo(120_000);
    assertThat(v.get("sum_stake").asDouble()).isEqualTo(5.0);
    assertThat(v.get("game_code").asText()).isEqualTo("roulette");
    assertThat(v.get("channel").asText()).isEqualTo("web");
  }

  @Test
  void shouldWriteTheEnvelopeByteForByte() {
    // the envelope is what consumers of the results topic parse and what a replay compares: its
    // bytes (field order, number forms, escapes) are pinned here
    JobSpec job = JobSpecLoader.parse(JOB, Map.of());
    Aggregate agg = Aggregate.empty(job.toSketchSpec());
    agg.update(new double[] {12.5, 0.25}, "u1", "ie", 12.5);
    agg.update(new double[] {40.0, Double.NaN}, "u2", "ie", 40.0);
    agg.update(new double[] {7.0, 1.5}, "u1", "fr", 7.0);

    byte[] bytes =
        new ResultFormatter(job)
            .format(
                "ad\"42",
                START,
                END,
                agg,
                1,
                new String[] {"web", null},
                null,
                new Provenance(new int[] {0, 3}, new long[] {2, 5}, 2, 4, START + 12_000, 0));

    assertThat(new String(bytes, StandardCharsets.UTF_8))
        .isEqualTo(
            "{\"event\":\"clicks\",\"ad\":\"ad\\\"42\",\"timestamp\":\"2023-11-14 22:13:20\","
                + "\"guarantee\":\"at_least_once\",\"value\":{\"window_start_ms\":1700000000000,"
                + "\"window_end_ms\":1700000010000,\"event_count\":3,\"sum_latency\":59.5,"
                + "\"min_latency\":7.0,\"max_latency\":40.0,\"sum_cost\":1.75,\"min_cost\":0.25,"
                + "\"max_cost\":1.5,\"distinct_user_id\":{\"estimate\":2,\"rse\":0.008125},"
                + "\"p50_latency_ms\":{\"estimate\":12.5,\"rank_error\":0.0},"
                + "\"p99_latency_ms\":{\"estimate\":40.0,\"rank_error\":0.0},"
                + "\"p99_9_latency_ms\":{\"estimate\":40.0,\"rank_error\":0.0},"
                + "\"top_country\":[{\"item\":\"ie\",\"estimate\":2,\"error\":0},"
                + "{\"item\":\"fr\",\"estimate\":1,\"error\":0}],\"channel\":\"web\",\"revision\":1},"
                + "\"provenance\":{\"sources\":[{\"partition\":0,\"epoch\":2},"
                + "{\"partition\":3,\"epoch\":5}],\"partitions_reporting\":2,"
                + "\"partitions_expected\":4,\"watermark_ms\":1700000012000,\"late_events\":0},"
                + "\"user_attributes\":{}}");
  }

  @Test
  void shouldWriteNullForANonFiniteSumAndEscapeKeys() throws Exception {
    JobSpec job =
        JobSpecLoader.parse(
            "name: n\ninput: {keyPointer: /k, timePointer: /t, numericFields: [/v]}\nwindow: {size: 1s}\n",
            Map.of());
    Aggregate agg = Aggregate.empty(job.toSketchSpec());
    agg.update(new double[] {Double.MAX_VALUE}, null, null, Double.NaN);
    agg.update(new double[] {Double.MAX_VALUE}, null, null, Double.NaN);

    JsonNode r =
        JSON.readTree(new ResultFormatter(job).format("a\"b\\c\u2603", -1000, 0, agg, 0, null));

    assertThat(r.get("key").asText()).isEqualTo("a\"b\\c\u2603");
    assertThat(r.get("timestamp").asText()).isEqualTo("1969-12-31 23:59:59");
    assertThat(r.get("value").get("sum_v").isNull()).isTrue();
    assertThat(r.get("value").get("max_v").asDouble()).isEqualTo(Double.MAX_VALUE);
  }

  @Test
  void shouldWriteTheJobsGuaranteeIntoEveryResult() throws Exception {
    // given the same job twice, once per guarantee (the second through the env override)
    JobSpec atLeastOnce = JobSpecLoader.parse(JOB, Map.of());
    JobSpec exactlyOnce = JobSpecLoader.parse(JOB, Map.of("SKEWER_GUARANTEE", "exactly_once"));
    Aggregate agg = Aggregate.empty(atLeastOnce.toSketchSpec());
    agg.update(new double[] {1.0, 2.0}, "u1", "ie", 1.0);

    // when
    JsonNode a =
        JSON.readTree(new ResultFormatter(atLeastOnce).format("k", START, END, agg, 0, null));
    JsonNode e =
        JSON.readTree(new ResultFormatter(exactlyOnce).format("k", START, END, agg, 0, null));
    JsonNode session =
        JSON.readTree(
            new ResultFormatter(
                    JobSpecLoader.load(
                        Path.of("..", "examples", "sessions.yaml"),
                        Map.of("SKEWER_GUARANTEE", "exactly_once")))
                .format(
                    "u1",
                    START,
                    START + 1,
                    Aggregate.empty(
                        JobSpecLoader.load(Path.of("..", "examples", "sessions.yaml"), Map.of())
                            .toSketchSpec()),
                    0,
                    null));

    // then the field says which guarantee produced the result; the rest is the same bytes
    assertThat(a.get("guarantee").asText()).isEqualTo("at_least_once");
    assertThat(e.get("guarantee").asText()).isEqualTo("exactly_once");
    assertThat(session.get("guarantee").asText()).isEqualTo("exactly_once");
    ((ObjectNode) a).remove("guarantee");
    ((ObjectNode) e).remove("guarantee");
    assertThat(e).isEqualTo(a);
  }

  @Test
  void shouldWriteTheProvenanceBesideTheValue() throws Exception {
    JobSpec job = JobSpecLoader.parse(JOB, Map.of());
    Aggregate agg = Aggregate.empty(job.toSketchSpec());
    agg.update(new double[] {1, 2}, "u", "ie", 1);
    Provenance p = new Provenance(new int[] {0, 3}, new long[] {2, 7}, 3, 4, END + 500, 5);

    JsonNode r =
        JSON.readTree(new ResultFormatter(job).format("ad42", START, END, agg, 1, null, null, p));

    JsonNode prov = r.get("provenance");
    assertThat(prov.get("sources").get(0).get("partition").asInt()).isZero();
    assertThat(prov.get("sources").get(0).get("epoch").asLong()).isEqualTo(2);
    assertThat(prov.get("sources").get(1).get("partition").asInt()).isEqualTo(3);
    assertThat(prov.get("sources").get(1).get("epoch").asLong()).isEqualTo(7);
    assertThat(prov.get("partitions_reporting").asInt()).isEqualTo(3);
    assertThat(prov.get("partitions_expected").asInt()).isEqualTo(4);
    assertThat(prov.get("watermark_ms").asLong()).isEqualTo(END + 500);
    assertThat(prov.get("late_events").asLong()).isEqualTo(5);
    assertThat(r.get("value").get("revision").asInt()).isEqualTo(1);
    assertThat(r.get("value").has("provenance")).isFalse();
    List<String> fields = new ArrayList<>();
    r.fieldNames().forEachRemaining(fields::add);
    assertThat(fields)
        .containsExactly(
            "event", "ad", "timestamp", "guarantee", "value", "provenance", "user_attributes");

    // unknown late count and watermark are left out, not invented
    JsonNode bare =
        JSON.readTree(
            new ResultFormatter(job)
                .format(
                    "ad42",
                    START,
                    END,
                    agg,
                    0,
                    null,
                    null,
                    new Provenance(new int[] {1}, new long[] {1}, 1, 4, Long.MIN_VALUE, -1)));
    assertThat(bare.get("provenance").has("late_events")).isFalse();
    assertThat(bare.get("provenance").has("watermark_ms")).isFalse();
  }

  @Test
  void shouldKeyResultsByKeyAndWindowStart() {
    JobSpec job = JobSpecLoader.parse(JOB, Map.of());
    assertThat(new ResultFormatter(job).resultKey("ad42", START)).isEqualTo("ad42@1700000000000");
    assertThat(new ResultFormatter(job).resultKey("a@b", -5)).isEqualTo("a@b@-5");
  }

  @Test
  void shouldWriteEachWindowsTimestampAndNumbersThatReadBackExactly() throws Exception {
    // given one formatter writing results of windows in turn, and values of every magnitude
    JobSpec job = JobSpecLoader.parse(JOB, Map.of());
    ResultFormatter formatter = new ResultFormatter(job);
    Random r = new Random(7);
    long[] starts = {START, START, END, START, -1000, 0, END + 10_000};
    String[] expected = {
      "2023-11-14 22:13:20",
      "2023-11-14 22:13:20",
      "2023-11-14 22:13:30",
      "2023-11-14 22:13:20",
      "1969-12-31 23:59:59",
      "1970-01-01 00:00:00",
      "2023-11-14 22:13:40"
    };
    for (int i = 0; i < 200; i++) {
      Aggregate agg = Aggregate.empty(job.toSketchSpec());
      double v =
          switch (i % 4) {
            case 0 -> r.nextDouble();
            case 1 ->
                Double.longBitsToDouble(r.nextLong() & Long.MAX_VALUE); // any finite magnitude
            case 2 -> r.nextGaussian() * Math.pow(10, r.nextInt(40) - 20);
            default -> -r.nextInt(1_000_000) / 1000.0;
          };
      if (!Double.isFinite(v)) {
        continue;
      }
      agg.update(new double[] {v, -v}, "u", "ie", v);
      int w = i % starts.length;

      // when
      JsonNode r2 =
          JSON.readTree(formatter.format("k", starts[w], starts[w] + 10_000, agg, 0, null));

      // then
      assertThat(r2.get("timestamp").asText()).isEqualTo(expected[w]);
      assertThat(r2.get("value").get("sum_latency").doubleValue()).isEqualTo(v);
      assertThat(r2.get("value").get("max_cost").doubleValue()).isEqualTo(-v);
      assertThat(r2.get("value").get("p50_latency_ms").get("estimate").doubleValue()).isEqualTo(v);
    }
  }

  @Test
  void resultsWrittenOneAfterAnotherAreTheBytesOfAFreshThreadsFirstResult() throws Exception {
    // given results of every shape: exact and t-digest quantiles, missing fields, dimensions
    JobSpec job = JobSpecLoader.parse(JOB, Map.of());
    ResultFormatter formatter = new ResultFormatter(job);
    Random random = new Random(7);
    List<Aggregate> aggregates = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      Aggregate agg = Aggregate.empty(job.toSketchSpec());
      int n = i % 3 == 0 ? 1 + random.nextInt(5) : random.nextInt(2_000);
      for (int e = 0; e < n; e++) {
        double latency = Math.exp(random.nextGaussian());
        agg.update(
            new double[] {latency, random.nextBoolean() ? Double.NaN : random.nextDouble()},
            "u" + random.nextInt(500),
            random.nextBoolean() ? "de" : "fr",
            latency);
      }
      aggregates.add(agg);
    }

    // when written one after another on this thread, with a failed result in the middle
    List<byte[]> sequential = new ArrayList<>();
    Aggregate wrongShape =
        Aggregate.empty(
            JobSpecLoader.parse(JOB.replace(", {name: cost, pointer: /cost}", ""), Map.of())
                .toSketchSpec());
    for (int i = 0; i < aggregates.size(); i++) {
      if (i == aggregates.size() / 2) {
        // a formatter of two numeric fields given an aggregate of one fails mid-result
        assertThatThrownBy(() -> formatter.format("bad", START, END, wrongShape, 0, null))
            .isInstanceOf(RuntimeException.class);
      }
      sequential.add(
          formatter.format(
              "ad" + i, START, END, aggregates.get(i), i % 2, new String[] {"web", null}));
    }

    // then each is what a thread writing its first result writes
    for (int i = 0; i < aggregates.size(); i++) {
      int at = i;
      byte[][] fresh = new byte[1][];
      Thread t =
          new Thread(
              () ->
                  fresh[0] =
                      formatter.format(
                          "ad" + at,
                          START,
                          END,
                          aggregates.get(at),
                          at % 2,
                          new String[] {"web", null}));
      t.start();
      t.join();
      assertThat(new String(sequential.get(i), StandardCharsets.UTF_8))
          .isEqualTo(new String(fresh[0], StandardCharsets.UTF_8));
      JSON.readTree(sequential.get(i)); // and each is one complete JSON document
    }
  }

  private static List<String> fieldNames(JsonNode n) {
    List<String> names = new ArrayList<>();
    n.fieldNames().forEachRemaining(names::add);
    return names;
  }
}

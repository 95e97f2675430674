package dev.skewer.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skewer.coordinator.CoordinatorRuntime;
import dev.skewer.coordinator.http.OpenApiResponses;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.launcher.local.LocalCluster;
import dev.skewer.launcher.verify.ResultCheck;
import dev.skewer.loadgen.produce.LoadProducer;
import dev.skewer.loadgen.reference.ExactReference;
import dev.skewer.loadgen.reference.ExactWindow;
import dev.skewer.loadgen.reference.WindowKey;
import dev.skewer.loadgen.workload.GeneratedEvent;
import dev.skewer.loadgen.workload.Workload;
import dev.skewer.loadgen.workload.WorkloadSpec;
import dev.skewer.testkit.job.JobYaml;
import dev.skewer.testkit.kafka.BrokerFixture;
import dev.skewer.testkit.kafka.EmbeddedKafka;
import dev.skewer.testkit.kafka.TopicReader;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The query API end to end on a real broker and real Hazelcast members: 2 nodes and 2 coordinators
 * (each owns one partials partition, and each must answer for the whole cluster), a workload with a
 * hot key, disorder, late and malformed events. Every answer of both coordinators is checked
 * against the brute-force reference and against the OpenAPI document.
 */
class QueryApiIT {

  @RegisterExtension static final BrokerFixture broker = BrokerFixture.perClass();

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void shouldAnswerEveryEndpointFromEveryCoordinatorExactlyAsTheReference() throws Exception {
    try (OpenApiResponses contract = OpenApiResponses.load()) {
      EmbeddedKafka kafka = broker.kafka();
      KafkaSettings settings = broker.settings();
      JobSpec job = broker.provision(JobYaml.named("query"));
      try (LocalCluster cluster =
          LocalCluster.start(
              job, settings, 2, 2, true, 0, new SimpleMeterRegistry(), Clock.systemUTC())) {
        await().atMost(Duration.ofSeconds(60)).until(() -> cluster.assignmentsSettled(4, 2));
        List<Integer> ports =
            cluster.coordinators().stream().map(c -> c.httpPort()).collect(Collectors.toList());

        // given a finished, exactly-checked run
        long now = System.currentTimeMillis();
        WorkloadSpec spec =
            WorkloadSpec.w1(40_000, 11)
                .withName("query")
                .withKeys(300)
                .withUsers(3_000)
                .withHotKeyShare(0.3)
                .withTime(now - 90_000, 1_000)
                .withDisorder(Duration.ofMillis(3_500))
                .withLate(0.01, Duration.ofSeconds(25))
                .withMalformed(0.002);
        ExactReference reference =
            ExactReference.of(
                Duration.ofSeconds(10),
                Duration.ofSeconds(2),
                Duration.ofSeconds(5),
                4,
                job.toSketchSpec());
        try (LoadProducer producer =
            LoadProducer.builder(kafka.bootstrapServers(), job.topics().events())
                .job(job)
                .reference(reference)
                .build()) {
          producer.run(Workload.of(spec));
        }
        assertThat(reference.late()).isNotEmpty();
        await()
            .atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofSeconds(2))
            .until(
                () ->
                    ResultCheck.check(
                            reference,
                            TopicReader.readAll(
                                kafka.bootstrapServers(),
                                job.topics().results(),
                                Duration.ofSeconds(20)),
                            "key",
                            "value",
                            true)
                        .ok());

        Map<Long, List<ExactWindow>> byWindow = new TreeMap<>();
        for (ExactWindow w : reference.windows().values()) {
          byWindow.computeIfAbsent(w.windowStartMs(), s -> new ArrayList<>()).add(w);
        }
        Map<Long, Long> lateByWindow = new HashMap<>();
        for (GeneratedEvent e : reference.late()) {
          lateByWindow.merge(Math.floorDiv(e.eventTimeMs(), 10_000) * 10_000, 1L, Long::sum);
        }
        long newest = ((TreeMap<Long, List<ExactWindow>>) byWindow).lastKey();

        for (int port : ports) {
          // then /windows lists every window, closed everywhere, with its keys and late events
          await()
              .atMost(Duration.ofSeconds(30))
              .untilAsserted(
                  () -> {
                    JsonObject windows =
                        get(contract, port, "windows", "/api/v1/windows?limit=1000");
                    Map<Long, JsonObject> listed = new HashMap<>();
                    for (Object o : windows.getJsonArray("windows")) {
                      JsonObject w = (JsonObject) o;
                      listed.put(w.getLong("window_start_ms"), w);
                    }
                    for (Map.Entry<Long, List<ExactWindow>> e : byWindow.entrySet()) {
                      JsonObject w = listed.get(e.getKey());
                      assertThat(w).as("window %d on port %d", e.getKey(), port).isNotNull();
                      assertThat(w.getString("state")).isEqualTo("closed");
                      assertThat(w.getInteger("partitions_reporting")).isEqualTo(2);
                      assertThat(w.getInteger("keys")).isEqualTo(e.getValue().size());
                      assertThat(w.getLong("late_events"))
                          .isEqualTo(lateByWindow.getOrDefault(e.getKey(), 0L));
                    }
                  });

          // and the latest closed window is the newest one, its top-K exact for every k
          Map<Long, JsonArray> topByWindow = new HashMap<>();
          JsonObject latest = get(contract, port, "topk", "/api/v1/topk?k=3");
          assertThat(latest.getLong("window_start_ms")).isEqualTo(newest);
          for (Map.Entry<Long, List<ExactWindow>> e : byWindow.entrySet()) {
            JsonObject top =
                get(contract, port, "topk", "/api/v1/topk?k=10000&window=" + e.getKey());
            List<ExactWindow> expected = new ArrayList<>(e.getValue());
            expected.sort(
                Comparator.comparingLong(ExactWindow::count)
                    .reversed()
                    .thenComparing(ExactWindow::key));
            JsonArray keys = top.getJsonArray("keys");
            topByWindow.put(e.getKey(), keys);
            assertThat(keys).hasSize(expected.size());
            for (int i = 0; i < expected.size(); i++) {
              assertThat(keys.getJsonObject(i).getString("key")).isEqualTo(expected.get(i).key());
              assertThat(keys.getJsonObject(i).getLong("count")).isEqualTo(expected.get(i).count());
            }
            // by distinct: ranked by the same estimate the reference sketch gives
            JsonArray byDistinct =
                get(contract, port, "topk", "/api/v1/topk?by=distinct&k=5&window=" + e.getKey())
                    .getJsonArray("keys");
            Map<String, ExactWindow> ref =
                e.getValue().stream().collect(Collectors.toMap(ExactWindow::key, w -> w));
            double previous = Double.MAX_VALUE;
            for (Object o : byDistinct) {
              JsonObject entry = (JsonObject) o;
              double estimate = entry.getDouble("distinct");
              assertThat(estimate)
                  .isEqualTo(ref.get(entry.getString("key")).aggregate().distinct().estimate());
              assertThat(estimate).isLessThanOrEqualTo(previous);
              previous = estimate;
            }
            // by sum: each sum the reference's, largest first
            JsonArray bySum =
                get(contract, port, "topk", "/api/v1/topk?by=sum&k=5&window=" + e.getKey())
                    .getJsonArray("keys");
            previous = Double.MAX_VALUE;
            for (Object o : bySum) {
              JsonObject entry = (JsonObject) o;
              double sum = entry.getJsonObject("sum").getDouble("value");
              assertThat(sum)
                  .isCloseTo(
                      ref.get(entry.getString("key")).sum(), Percentage.withPercentage(1e-9));
              assertThat(sum).isLessThanOrEqualTo(previous);
              previous = sum;
            }
          }

          // and a key's results, every window, with the reference's counts and estimates
          for (String key : List.of("ad0", "ad17")) {
            JsonObject answer = get(contract, port, "key", "/api/v1/keys/" + key);
            Map<Long, ExactWindow> expected = new TreeMap<>();
            reference
                .windows()
                .forEach(
                    (WindowKey wk, ExactWindow w) -> {
                      if (wk.key().equals(key)) {
                        expected.put(wk.windowStartMs(), w);
                      }
                    });
            JsonArray windows = answer.getJsonArray("windows");
            assertThat(windows).hasSize(expected.size());
            int i = 0;
            for (ExactWindow w : expected.values()) {
              JsonObject got = windows.getJsonObject(i++);
              assertThat(got.getLong("window_start_ms")).isEqualTo(w.windowStartMs());
              assertThat(got.getLong("event_count")).isEqualTo(w.count());
              JsonObject distinct = got.getJsonObject("estimates").getJsonObject("distinct_user");
              assertThat(distinct.getDouble("estimate"))
                  .isEqualTo(w.aggregate().distinct().estimate());
              assertThat(got.getJsonObject("estimates").getJsonObject("p99_value")).isNotNull();
              // provenance is the envelope's, passed through as written (null when it has none)
              assertThat(got.getValue("provenance"))
                  .isEqualTo(
                      got.getJsonObject("result").getValue("provenance") != null
                          ? got.getJsonObject("result").getValue("provenance")
                          : got.getJsonObject("result")
                              .getJsonObject("value")
                              .getValue("provenance"));
              // and the top-K entry of the key in that window carries the same provenance
              JsonObject entry =
                  topByWindow.get(w.windowStartMs()).stream()
                      .map(JsonObject.class::cast)
                      .filter(k -> k.getString("key").equals(key))
                      .findFirst()
                      .orElseThrow();
              assertThat(entry.getJsonObject("provenance"))
                  .isNotNull()
                  .isEqualTo(got.getValue("provenance"));
            }
          }

          // and the late and DLQ counts are the reference's
          JsonObject status = get(contract, port, "status", "/api/v1/status");
          assertThat(status.getJsonObject("late").getLong("total"))
              .isEqualTo(reference.late().size());
          assertThat(status.getJsonObject("dlq").getLong("total"))
              .isEqualTo(reference.dlq().size());
          assertThat(status.getJsonObject("watermark").getJsonArray("partitions")).hasSize(2);
          Set<String> nodes = new HashSet<>();
          for (Object o : status.getJsonArray("nodes")) {
            nodes.add(((JsonObject) o).getString("node"));
          }
          assertThat(nodes).containsExactlyInAnyOrder("node-1", "node-2");

          // and the lateness advice keeps what it says of the late events on the late topic
          assertLatenessAdvice(
              get(contract, port, "lateness", "/api/v1/lateness"),
              TopicReader.readAll(
                  kafka.bootstrapServers(), job.topics().late(), Duration.ofSeconds(20)),
              reference.late().size());

          JsonObject members = get(contract, port, "cluster", "/api/v1/cluster");
          assertThat(members.getInteger("size")).isEqualTo(4);
          get(contract, port, "hotkeys", "/api/v1/hotkeys");
        }
        assertThat(contract.checked()).isGreaterThan(20);
        // and each coordinator's view took the results its coordinator wrote from it, unparsed,
        // and parsed the other's
        for (CoordinatorRuntime c : cluster.coordinators()) {
          assertThat(c.query().resultsHandedOver()).isPositive();
          assertThat(c.query().resultsParsed()).isPositive();
        }
      }
    }
  }

  /** Recomputes each late record's needed lateness from its header and checks the advice. */
  private static void assertLatenessAdvice(
      JsonObject lateness, List<ConsumerRecord<byte[], byte[]>> late, int expectedLate) {
    assertThat(lateness.getLong("late_events")).isEqualTo(expectedLate);
    List<Long> needed = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r : late) {
      Header wm = r.headers().lastHeader("skewer.watermark");
      long ts = new JsonObject(new String(r.value(), StandardCharsets.UTF_8)).getLong("ts");
      long end = Math.floorDiv(ts, 10_000) * 10_000 + 10_000;
      needed.add(Long.parseLong(new String(wm.value(), StandardCharsets.UTF_8)) - end + 1);
    }
    needed.sort(Long::compare);
    assertThat(lateness.getLong("measured")).isEqualTo(needed.size());
    for (double[] q : new double[][] {{0.99, 0}, {0.999, 0}}) {
      long exact = needed.get((int) Math.ceil(q[0] * needed.size() - 1e-9) - 1);
      long advised =
          lateness.getJsonObject("advice").getLong(q[0] == 0.99 ? "keep_99_ms" : "keep_99_9_ms");
      assertThat(advised).isBetween(exact, exact + exact / 64 + 1);
      long kept = needed.stream().filter(n -> n <= advised).count();
      assertThat(kept).isGreaterThanOrEqualTo((long) Math.ceil(q[0] * needed.size() - 1e-9));
    }
    // every late event needed more than the job's allowed lateness (that is why it was late)
    assertThat(new TreeSet<>(needed).first()).isGreaterThan(5_000);
    assertThat(lateness.getString("text")).contains("99.9%");
  }

  private JsonObject get(OpenApiResponses contract, int port, String operation, String path)
      throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    contract.check(
        operation, r.statusCode(), r.headers().firstValue("content-type").orElse(""), r.body());
    assertThat(r.statusCode()).as(path + " -> " + r.body()).isEqualTo(200);
    return new JsonObject(r.body());
  }
}

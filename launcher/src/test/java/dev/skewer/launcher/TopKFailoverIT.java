package dev.skewer.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skewer.coordinator.CoordinatorRuntime;
import dev.skewer.coordinator.http.OpenApiResponses;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.core.result.ResultFormatter;
import dev.skewer.launcher.local.LocalCluster;
import dev.skewer.launcher.verify.ResultCheck;
import dev.skewer.loadgen.produce.LoadProducer;
import dev.skewer.loadgen.reference.ExactReference;
import dev.skewer.loadgen.workload.Workload;
import dev.skewer.loadgen.workload.WorkloadSpec;
import dev.skewer.sketches.Aggregate;
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
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The top-K index after a coordinator failover, on a real broker with real Hazelcast members: two
 * coordinators (job {@code topK: 3}, far below the k asked), windows closed before and after one
 * coordinator is killed, a window written two hours before the cluster started and revised after
 * the failover, and a replacement coordinator started last. Every live coordinator must answer
 * every window's top-K for k = 10,000 exactly as the results topic (the upsert source of truth)
 * holds it: every key, ranked by count then key, each key's latest revision.
 */
class TopKFailoverIT {

  @RegisterExtension static final BrokerFixture broker = BrokerFixture.perClass();

  private static final long WINDOW_MS = 10_000;
  private static final int OLD_KEYS = 30;

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void shouldAnswerEveryWindowWholeOnEveryCoordinatorAfterAFailoverAndALateRevision()
      throws Exception {
    try (OpenApiResponses contract = OpenApiResponses.load()) {
      EmbeddedKafka kafka = broker.kafka();
      KafkaSettings settings = broker.settings();
      JobSpec job =
          broker.provision(
              JobYaml.named("topkfailover")
                  .topicPrefix("tkf")
                  .noQuantile()
                  .idle(Duration.ofSeconds(4))
                  .finalizeAfterIdle(Duration.ofSeconds(5))
                  .allowedLateness(Duration.ZERO)
                  .topK(3));
      long now = System.currentTimeMillis();
      long t0 = Math.floorDiv(now - 150_000, WINDOW_MS) * WINDOW_MS;
      // given: a window of a run two hours ago (record time), before any coordinator started
      long oldWindow = t0 - Duration.ofHours(2).toMillis();
      try (KafkaProducer<byte[], byte[]> producer = producer(kafka)) {
        for (int i = 0; i < OLD_KEYS; i++) {
          sendResult(job, producer, "old" + i, oldWindow, 10 + i % 5, 0, now - 7_200_000);
        }
        producer.flush();
      }

      try (LocalCluster cluster =
          LocalCluster.start(
              job, settings, 2, 2, true, 0, new SimpleMeterRegistry(), Clock.systemUTC())) {
        await().atMost(Duration.ofSeconds(60)).until(() -> cluster.assignmentsSettled(4, 2));
        ExactReference reference =
            ExactReference.of(
                Duration.ofMillis(WINDOW_MS),
                Duration.ofSeconds(2),
                Duration.ZERO,
                4,
                job.toSketchSpec());

        // and windows closed while both coordinators run
        run(kafka, job, reference, 20_000, t0, 1);
        awaitResults(kafka, job, reference, oldWindow);

        // when: one coordinator is killed and the other takes over both partials partitions
        CoordinatorRuntime killed = cluster.coordinators().get(0);
        CoordinatorRuntime survivor = cluster.coordinators().get(1);
        cluster.killCoordinator(killed);
        await().atMost(Duration.ofSeconds(60)).until(() -> survivor.ownedPartitions().size() == 2);

        // and more windows close after the failover
        run(kafka, job, reference, 20_000, t0 + 40_000, 2);
        awaitResults(kafka, job, reference, oldWindow);

        // and the old window is revised (one key, re-emitted with a higher revision)
        try (KafkaProducer<byte[], byte[]> producer = producer(kafka)) {
          sendResult(job, producer, "old7", oldWindow, 1_000, 1, System.currentTimeMillis());
          producer.flush();
        }

        // and a replacement coordinator starts, rebuilding its view from the results topic
        CoordinatorRuntime replacement = cluster.addCoordinator("coordinator-3");

        // then: every coordinator answers every window exactly as the results topic holds it
        Map<Long, List<Expected>> expected = expectedFromTopic(kafka, job);
        assertThat(expected).containsKey(oldWindow);
        assertThat(expected.get(oldWindow)).hasSize(OLD_KEYS);
        assertThat(expected.size()).isGreaterThanOrEqualTo(5);
        long newest = ((TreeMap<Long, List<Expected>>) expected).lastKey();
        for (CoordinatorRuntime c : List.of(survivor, replacement)) {
          int port = c.httpPort();
          await()
              .atMost(Duration.ofSeconds(60))
              .until(() -> get(contract, port, "/api/v1/topk?k=1").statusCode() == 200);
          for (Map.Entry<Long, List<Expected>> e : expected.entrySet()) {
            HttpResponse<String> r =
                get(contract, port, "/api/v1/topk?k=10000&window=" + e.getKey());
            assertThat(r.statusCode())
                .as("port %d window %d: %s", port, e.getKey(), r.body())
                .isEqualTo(200);
            JsonArray keys = new JsonObject(r.body()).getJsonArray("keys");
            assertThat(keys)
                .as("keys of window %d on port %d", e.getKey(), port)
                .hasSize(e.getValue().size());
            for (int i = 0; i < keys.size(); i++) {
              JsonObject got = keys.getJsonObject(i);
              Expected want = e.getValue().get(i);
              assertThat(got.getString("key")).as("rank %d", i + 1).isEqualTo(want.key());
              assertThat(got.getLong("count")).isEqualTo(want.count());
              assertThat(got.getInteger("revision")).isEqualTo(want.revision());
            }
          }
          // the revised key leads the old window; the latest window is the newest closed one
          JsonObject old = json(get(contract, port, "/api/v1/topk?k=1&window=" + oldWindow));
          assertThat(old.getJsonArray("keys").getJsonObject(0).getString("key")).isEqualTo("old7");
          assertThat(old.getInteger("keys_in_window")).isEqualTo(OLD_KEYS);
          await()
              .atMost(Duration.ofSeconds(30))
              .untilAsserted(
                  () ->
                      assertThat(
                              json(get(contract, port, "/api/v1/topk?k=3"))
                                  .getLong("window_start_ms"))
                          .isEqualTo(newest));
        }
        assertThat(contract.checked()).isGreaterThan(10);
      }
    }
  }

  private record Expected(String key, long count, int revision) {}

  /** Every window's keys by count descending then key, each key's highest revision. */
  private static Map<Long, List<Expected>> expectedFromTopic(EmbeddedKafka kafka, JobSpec job) {
    List<ConsumerRecord<byte[], byte[]>> records =
        TopicReader.readAll(
            kafka.bootstrapServers(), job.topics().results(), Duration.ofSeconds(20));
    Map<Long, Map<String, Expected>> latest = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : records) {
      JsonObject envelope = new JsonObject(new String(r.value(), StandardCharsets.UTF_8));
      JsonObject value = envelope.getJsonObject("value");
      Expected e =
          new Expected(
              envelope.getString("key"),
              value.getLong("event_count"),
              value.getInteger("revision"));
      latest
          .computeIfAbsent(value.getLong("window_start_ms"), w -> new HashMap<>())
          .merge(e.key(), e, (a, b) -> b.revision() > a.revision() ? b : a);
    }
    Map<Long, List<Expected>> out = new TreeMap<>();
    latest.forEach(
        (w, byKey) -> {
          List<Expected> list = new ArrayList<>(byKey.values());
          list.sort(
              Comparator.comparingLong(Expected::count).reversed().thenComparing(Expected::key));
          out.put(w, list);
        });
    return out;
  }

  private static void run(
      EmbeddedKafka kafka, JobSpec job, ExactReference reference, long events, long t0, long seed)
      throws Exception {
    WorkloadSpec spec =
        WorkloadSpec.w1(events, seed)
            .withName("topk-failover")
            .withKeys(150)
            .withUsers(500)
            .withHotKeyShare(0.2)
            .withTime(t0, 1_000)
            .withDisorder(Duration.ofMillis(500));
    try (LoadProducer producer =
        LoadProducer.builder(kafka.bootstrapServers(), job.topics().events())
            .job(job)
            .reference(reference)
            .build()) {
      producer.run(Workload.of(spec));
    }
  }

  /** Waits until the results topic, less the seeded old window, is exactly the reference's. */
  private static void awaitResults(
      EmbeddedKafka kafka, JobSpec job, ExactReference reference, long oldWindow) {
    String seeded = "@" + oldWindow;
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofSeconds(2))
        .untilAsserted(
            () -> {
              ResultCheck.Report report =
                  ResultCheck.check(
                      reference,
                      TopicReader.readAll(
                              kafka.bootstrapServers(),
                              job.topics().results(),
                              Duration.ofSeconds(20))
                          .stream()
                          .filter(
                              r -> !new String(r.key(), StandardCharsets.UTF_8).endsWith(seeded))
                          .toList(),
                      "key",
                      "value",
                      true);
              assertThat(report.ok()).as(report.summary()).isTrue();
            });
  }

  private static KafkaProducer<byte[], byte[]> producer(EmbeddedKafka kafka) {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
  }

  /** A result envelope as the merge stage writes it, {@code count} events of value 1. */
  private static void sendResult(
      JobSpec job,
      KafkaProducer<byte[], byte[]> producer,
      String key,
      long windowStartMs,
      int count,
      int revision,
      long recordTimeMs) {
    Aggregate a = Aggregate.empty(job.toSketchSpec());
    for (int i = 0; i < count; i++) {
      a.update(new double[] {1.0}, "u" + i, null, Double.NaN);
    }
    ResultFormatter formatter = new ResultFormatter(job);
    producer.send(
        new ProducerRecord<>(
            job.topics().results(),
            null,
            recordTimeMs,
            formatter.resultKey(key, windowStartMs).getBytes(StandardCharsets.UTF_8),
            formatter.format(key, windowStartMs, windowStartMs + WINDOW_MS, a, revision, null)));
  }

  private HttpResponse<String> get(OpenApiResponses contract, int port, String path)
      throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    contract.check(
        "topk", r.statusCode(), r.headers().firstValue("content-type").orElse(""), r.body());
    return r;
  }

  private static JsonObject json(HttpResponse<String> r) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return new JsonObject(r.body());
  }
}

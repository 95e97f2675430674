package dev.skewer.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.skewer.core.event.DlqReason;
import dev.skewer.core.job.Guarantee;
import dev.skewer.core.job.JobSpec;
import dev.skewer.launcher.local.LocalCluster;
import dev.skewer.launcher.verify.ResultCheck;
import dev.skewer.loadgen.produce.LoadProducer;
import dev.skewer.loadgen.produce.LoadSummary;
import dev.skewer.loadgen.reference.ExactReference;
import dev.skewer.loadgen.reference.ExactWindow;
import dev.skewer.loadgen.reference.WindowKey;
import dev.skewer.loadgen.workload.EventKind;
import dev.skewer.loadgen.workload.GeneratedEvent;
import dev.skewer.loadgen.workload.Workload;
import dev.skewer.loadgen.workload.WorkloadSpec;
import dev.skewer.testkit.job.JobYaml;
import dev.skewer.testkit.kafka.BrokerFixture;
import dev.skewer.testkit.kafka.TopicReader;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The whole pipeline on a real KRaft broker and real Hazelcast members: 2 nodes and 1 coordinator,
 * 4 event partitions and 2 partials partitions, 200,000 events with disorder, a hot key, late
 * events within and beyond allowed lateness, malformed and future-dated events — checked against a
 * brute-force reference computed from the same events.
 */
class EndToEndIT {

  private static final ObjectMapper JSON = new ObjectMapper();

  @RegisterExtension static final BrokerFixture broker = BrokerFixture.perClass();

  private static JobSpec job(String name) {
    return job(name, Guarantee.AT_LEAST_ONCE);
  }

  private static JobSpec job(String name, Guarantee guarantee) {
    return broker.provision(JobYaml.named(name).guarantee(guarantee));
  }

  @Test
  void shouldEmitExactlyOneExactResultPerKeyAndWindow() throws Exception {
    run(job("e2e"), false);
  }

  /**
   * A node leaves mid-stream (graceful stop: it checkpoints on the way out); its partitions move to
   * the other node, which restores the checkpoints, seeks to their offsets and replays. The
   * results, the late topic and the DLQ must be exactly those of a failure-free run: nothing lost,
   * nothing counted twice, no side output written twice.
   */
  @Test
  void shouldStayExactWhenNodeLeavesMidStreamAndAnotherRestoresItsCheckpoints() throws Exception {
    run(job("failover"), true);
  }

  /** As above with {@code guarantee: exactly_once}: each output visible exactly once. */
  @Test
  void shouldEmitExactlyOneExactResultPerKeyAndWindowWithExactlyOnce() throws Exception {
    run(job("eos", Guarantee.EXACTLY_ONCE), false);
  }

  /**
   * The mid-stream departure with {@code guarantee: exactly_once}: the leaving node commits its
   * partitions' transactions, the other restores the committed checkpoints; no result or side
   * output is written twice, not even a byte-identical one.
   */
  @Test
  void shouldStayExactWhenNodeLeavesMidStreamWithExactlyOnce() throws Exception {
    run(job("eosfailover", Guarantee.EXACTLY_ONCE), true);
  }

  private void run(JobSpec job, boolean failover) throws Exception {
    // given a running cluster whose consumer groups have settled
    try (LocalCluster cluster =
        LocalCluster.start(
            job, broker.settings(), 2, 1, true, 0, new SimpleMeterRegistry(), Clock.systemUTC())) {
      await().atMost(Duration.ofSeconds(60)).until(() -> cluster.assignmentsSettled(4, 2));

      // when 200,000 events are produced: 2,000 per simulated second ending 20 s ago, so the
      // future-dated ones are in the future and everything else in the past
      long now = System.currentTimeMillis();
      WorkloadSpec spec =
          WorkloadSpec.w1(200_000, 7)
              .withName("e2e")
              .withKeys(2_000)
              .withUsers(20_000)
              .withHotKeyShare(0.3)
              .withTime(now - 120_000, 2_000)
              .withDisorder(Duration.ofMillis(3_500)) // beyond the 2 s delay: some within lateness
              .withLate(0.002, Duration.ofSeconds(25)) // beyond end + lateness: to the late topic
              .withMalformed(0.001)
              .withFuture(0.0005);
      ExactReference reference =
          ExactReference.of(
              Duration.ofSeconds(10),
              Duration.ofSeconds(2),
              Duration.ofSeconds(5),
              4,
              job.toSketchSpec());
      LoadSummary sent;
      try (LoadProducer producer =
          LoadProducer.builder(broker.bootstrapServers(), job.topics().events())
              .job(job)
              .reference(reference)
              .rate(failover ? 40_000 : 0)
              .build()) {
        Thread leaver = null;
        if (failover) {
          leaver =
              new Thread(
                  () -> {
                    try {
                      Thread.sleep(2_500); // mid-stream, after a few checkpoints
                      cluster.nodes().get(0).close();
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                  });
          leaver.start();
        }
        sent = producer.run(Workload.of(spec));
        if (leaver != null) {
          leaver.join();
        }
      }
      assertThat(sent.sent()).isEqualTo(200_000);
      assertThat(reference.late()).as("the workload must exercise the late path").isNotEmpty();
      assertThat(reference.dlq()).as("the workload must exercise the DLQ").isNotEmpty();
      assertThat(reference.windows().values().stream().anyMatch(w -> w.revisionExpected()))
          .as("the workload must exercise revisions within lateness")
          .isTrue();

      // then every (key, window) gets exactly one exact final result
      ResultCheck.Report[] report = new ResultCheck.Report[1];
      try {
        await()
            .atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofSeconds(2))
            .until(
                () -> {
                  List<ConsumerRecord<byte[], byte[]>> results =
                      TopicReader.readAll(
                          broker.bootstrapServers(),
                          job.topics().results(),
                          Duration.ofSeconds(20));
                  report[0] = ResultCheck.check(reference, results, "key", "value", true);
                  return report[0].ok();
                });
      } catch (org.awaitility.core.ConditionTimeoutException e) {
        throw new AssertionError(
            job.name() + ": " + (report[0] == null ? "no results read" : report[0].summary()), e);
      }
      assertThat(report[0].problems()).isEmpty();
      System.err.printf(
          "e2e: %s; late %d, DLQ %d, windows expecting revisions %d%n",
          report[0].summary(),
          reference.late().size(),
          reference.dlq().size(),
          reference.windows().values().stream().filter(w -> w.revisionExpected()).count());
      assertThat(report[0].resultCount()).isEqualTo(reference.totalCount());
      assertThat(cluster.sendFailures()).isZero();
      List<ConsumerRecord<byte[], byte[]>> written =
          TopicReader.readAll(
              broker.bootstrapServers(), job.topics().results(), Duration.ofSeconds(20));
      assertThat(guarantees(written))
          .as("every result says which guarantee produced it")
          .containsOnlyKeys(job.guarantee().label());
      if (job.guarantee() == Guarantee.EXACTLY_ONCE) {
        assertThat(repeated(written))
            .as("(result key, revision) pairs written more than once")
            .isEmpty();
      }

      // and the late topic holds exactly the too-late events, the DLQ exactly the bad ones
      List<ConsumerRecord<byte[], byte[]>> late =
          TopicReader.readAll(
              broker.bootstrapServers(), job.topics().late(), Duration.ofSeconds(20));
      assertThat(payloads(late))
          .as("late topic, no duplicates")
          .isEqualTo(sortedJson(reference.late()));
      List<ConsumerRecord<byte[], byte[]>> dlq =
          TopicReader.readAll(
              broker.bootstrapServers(), job.topics().dlq(), Duration.ofSeconds(20));
      assertThat(payloads(dlq)).as("DLQ, no duplicates").isEqualTo(sortedJson(reference.dlq()));
      for (ConsumerRecord<byte[], byte[]> r : dlq) {
        Header reason = r.headers().lastHeader(DlqReason.HEADER);
        assertThat(reason).as("every DLQ record names its reason").isNotNull();
        assertThat(DlqReason.values())
            .extracting(DlqReason::code)
            .contains(new String(reason.value(), StandardCharsets.UTF_8));
        assertThat(r.headers().lastHeader("skewer.source.offset")).isNotNull();
      }
      long futureCount = reference.dlq().stream().filter(e -> e.kind() == EventKind.FUTURE).count();
      long futureRouted =
          dlq.stream()
              .filter(
                  r ->
                      DlqReason.FUTURE_TIME
                          .code()
                          .equals(
                              new String(
                                  r.headers().lastHeader(DlqReason.HEADER).value(),
                                  StandardCharsets.UTF_8)))
              .count();
      assertThat(futureRouted).isEqualTo(futureCount);

      // and the HTTP API serves a merged top-K of a closed window: the latest is one of the
      // reference's windows (the stream's last window may hold a single event, so not which keys
      // it has); the fullest window's first place is the hot key with its exact count
      HttpClient http = HttpClient.newHttpClient();
      String api = "http://127.0.0.1:" + cluster.httpPort() + "/api/v1/topk?k=3";
      Map<Long, Long> eventsPerWindow = new TreeMap<>();
      reference
          .windows()
          .values()
          .forEach(w -> eventsPerWindow.merge(w.windowStartMs(), w.count(), Long::sum));
      HttpResponse<String> latest = get(http, api);
      assertThat(latest.statusCode()).isEqualTo(200);
      assertThat(eventsPerWindow)
          .containsKey(JSON.readTree(latest.body()).path("window_start_ms").asLong());
      long fullest =
          eventsPerWindow.entrySet().stream()
              .max(Map.Entry.comparingByValue())
              .orElseThrow()
              .getKey();
      ExactWindow hot = reference.windows().get(new WindowKey("ad0", fullest));
      assertThat(hot).as("the hot key in the fullest window").isNotNull();
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                HttpResponse<String> topk = get(http, api + "&window=" + fullest);
                assertThat(topk.statusCode()).isEqualTo(200);
                JsonNode first = JSON.readTree(topk.body()).path("keys").path(0);
                assertThat(first.path("key").asText()).isEqualTo("ad0");
                assertThat(first.path("count").asLong()).isEqualTo(hot.count());
              });
      HttpResponse<String> members =
          get(http, "http://127.0.0.1:" + cluster.httpPort() + "/api/v1/cluster");
      assertThat(members.body()).contains(failover ? "\"size\":" : "\"size\":3");
    }
  }

  private static HttpResponse<String> get(HttpClient http, String uri) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(uri)).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** How many results carry each {@code guarantee} value. */
  private static Map<String, Long> guarantees(List<ConsumerRecord<byte[], byte[]>> results)
      throws Exception {
    Map<String, Long> out = new java.util.TreeMap<>();
    for (ConsumerRecord<byte[], byte[]> r : results) {
      out.merge(JSON.readTree(r.value()).path("guarantee").asText("(none)"), 1L, Long::sum);
    }
    return out;
  }

  /** The (result key, revision) pairs that occur more than once. */
  private static List<String> repeated(List<ConsumerRecord<byte[], byte[]>> results)
      throws Exception {
    Map<String, Integer> seen = new java.util.HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : results) {
      String pair =
          new String(r.key(), StandardCharsets.UTF_8)
              + " revision "
              + JSON.readTree(r.value()).path("value").path("revision").asInt();
      seen.merge(pair, 1, Integer::sum);
    }
    return seen.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).toList();
  }

  private static List<String> payloads(List<ConsumerRecord<byte[], byte[]>> records) {
    List<String> out = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r : records) {
      out.add(new String(r.value(), StandardCharsets.UTF_8));
    }
    Collections.sort(out);
    return out;
  }

  private static List<String> sortedJson(List<GeneratedEvent> events) {
    List<String> out = new ArrayList<>();
    for (GeneratedEvent e : events) {
      out.add(new String(e.json(), StandardCharsets.UTF_8));
    }
    Collections.sort(out);
    return out;
  }
}

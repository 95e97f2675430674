package dev.skewer.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.skewer.core.job.JobSpec;
import dev.skewer.launcher.local.LocalCluster;
import dev.skewer.loadgen.reference.ShapeReference;
import dev.skewer.testkit.job.JobYaml;
import dev.skewer.testkit.kafka.BrokerFixture;
import dev.skewer.testkit.kafka.TopicReader;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hopping windows and sessions end to end on a real KRaft broker and real Hazelcast members: 2
 * nodes and 1 coordinator, 4 event partitions and 2 partials partitions. Keys are salted over up to
 * 3 partitions, events are disordered within the delay, some are late within and beyond allowed
 * lateness (for sessions, inside silences, bridging closed sessions). The upsert view of the
 * results topic (latest record per result key, superseded sessions left out) must equal the
 * brute-force reference exactly, with at most one revision 0 per result key.
 */
class WindowShapesIT {

  private static final String SENTINEL = "zz-sentinel";
  private static final ObjectMapper JSON = new ObjectMapper();

  @RegisterExtension static final BrokerFixture broker = BrokerFixture.perClass();

  /** {@code /value}'s sum, min and max, no distinct count, no quantiles; watermark delay 1 s. */
  private static JobSpec job(JobYaml job) {
    return broker.provision(job.noDistinct().noQuantile().quantiles().delay(Duration.ofSeconds(1)));
  }

  @Test
  void shouldEmitExactHoppingWindows() throws Exception {
    JobSpec job =
        job(
            JobYaml.named("hopping")
                .hopping(Duration.ofSeconds(10), Duration.ofSeconds(2))
                .allowedLateness(Duration.ofSeconds(3)));
    // an event is late only past lateness for all its windows: up to size + 3 x lateness behind
    run(job, ShapeReference.hopping(10_000, 2_000, 1_000, 3_000, 4), false, 19_000);
  }

  @Test
  void shouldEmitExactSessionsMergedAcrossSaltedPartitions() throws Exception {
    JobSpec job =
        job(
            JobYaml.named("sessions")
                .session(Duration.ofSeconds(2))
                .allowedLateness(Duration.ofSeconds(10)));
    run(job, ShapeReference.sessions(2_000, 1_000, 10_000, 4), true, 30_000);
  }

  private void run(JobSpec job, ShapeReference reference, boolean sessions, long lateSpanMs)
      throws Exception {
    // given a running cluster whose consumer groups have settled
    try (LocalCluster cluster =
        LocalCluster.start(
            job, broker.settings(), 2, 1, true, 0, new SimpleMeterRegistry(), Clock.systemUTC())) {
      await().atMost(Duration.ofSeconds(60)).until(() -> cluster.assignmentsSettled(4, 2));

      // when 30,000 events over ~90 s of event time are produced, then a sentinel on every
      // partition moves every watermark far past the end
      Random random = new Random(42);
      long now = System.currentTimeMillis() - 600_000;
      long end = now;
      String topic = job.topics().events();
      try (KafkaProducer<byte[], byte[]> producer = producer()) {
        for (int i = 0; i < 30_000; i++) {
          now += random.nextInt(6);
          int k = Math.min(199, (int) Math.abs(random.nextGaussian() * 60));
          long t = now - random.nextInt(1_001);
          if (random.nextInt(100) < 2) {
            t = now - 1_000 - random.nextInt((int) lateSpanMs); // within and beyond lateness
          } else if (sessions && Math.floorMod(t / (1_500 + 40L * k), 2) == 1) {
            continue; // silences between sessions
          }
          int partition = (k + random.nextInt(1 + k % 3)) % 4; // salted over distinct partitions
          double value = 1 + random.nextInt(100);
          reference.accept(partition, "k" + k, t, value);
          send(producer, topic, partition, "k" + k, t, value);
          end = Math.max(end, t);
        }
        if (sessions) {
          bridge(job, reference, producer, end);
        }
        for (int p = 0; p < 4; p++) {
          send(producer, topic, p, SENTINEL, end + 120_000, 1);
        }
        producer.flush();
      }
      assertThat(reference.late()).as("the workload must exercise the late path").isPositive();

      // then the upsert view of the results topic is exactly the reference
      Map<String, ShapeReference.Result> expected = reference.results();
      Map<String, List<JsonNode>> written = new TreeMap<>();
      String[] lastDiff = {""};
      try {
        await()
            .atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofSeconds(2))
            .until(
                () -> {
                  written.clear();
                  for (ConsumerRecord<byte[], byte[]> r :
                      TopicReader.readAll(
                          broker.bootstrapServers(),
                          job.topics().results(),
                          Duration.ofSeconds(20))) {
                    String key = new String(r.key(), StandardCharsets.UTF_8);
                    if (!key.startsWith(SENTINEL)) {
                      written.computeIfAbsent(key, x -> new ArrayList<>()).add(parse(r.value()));
                    }
                  }
                  Map<String, String> live = live(written, sessions);
                  Map<String, String> want = expectedView(expected);
                  if (!live.equals(want)) {
                    List<String> diff = new ArrayList<>();
                    for (String k : want.keySet()) {
                      if (!want.get(k).equals(live.get(k))) {
                        diff.add(k + " want " + want.get(k) + " got " + live.get(k));
                      }
                    }
                    for (String k : live.keySet()) {
                      if (!want.containsKey(k)) {
                        diff.add(k + " unexpected " + live.get(k));
                      }
                    }
                    lastDiff[0] =
                        diff.size()
                            + " differences, e.g. "
                            + diff.subList(0, Math.min(8, diff.size()));
                    return false;
                  }
                  return true;
                });
      } catch (ConditionTimeoutException e) {
        throw new AssertionError(job.name() + ": " + lastDiff[0], e);
      }
      long revisions = 0;
      long superseded = 0;
      for (Map.Entry<String, List<JsonNode>> e : written.entrySet()) {
        long zeros =
            e.getValue().stream()
                .filter(v -> v.path("value").path("revision").asInt() == 0)
                .count();
        assertThat(zeros).as("revision 0 records of %s", e.getKey()).isLessThanOrEqualTo(1);
        revisions += e.getValue().size() - zeros;
        // a superseded session is rewritten with event_count 0 (and "superseded_by" once the
        // merge verticle passes FinalResult.supersededByStartMs to the formatter)
        superseded +=
            e.getValue().stream()
                .filter(v -> v.path("value").path("event_count").asLong() == 0)
                .count();
      }
      System.err.printf(
          "%s: %d results exact, %d revisions, %d superseded, %d late events%n",
          job.name(), expected.size(), revisions, superseded, reference.late());
      assertThat(revisions).as("the workload must exercise revisions within lateness").isPositive();
      if (sessions) {
        assertThat(superseded).as("late events must bridge closed sessions").isPositive();
      }
      assertThat(cluster.sendFailures()).isZero();
    }
  }

  /**
   * Once the first phase's sessions are final, sends late events (within lateness) that bridge up
   * to 5 pairs of consecutive closed sessions of one key.
   */
  private void bridge(
      JobSpec job, ShapeReference reference, KafkaProducer<byte[], byte[]> producer, long end) {
    producer.flush();
    Map<String, List<ShapeReference.Result>> byKey = new TreeMap<>();
    for (ShapeReference.Result r : reference.results().values()) {
      byKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r);
    }
    List<ShapeReference.Result[]> pairs = new ArrayList<>();
    for (List<ShapeReference.Result> sessions : byKey.values()) {
      sessions.sort((a, b) -> Long.compare(a.startMs(), b.startMs()));
      for (int i = 1; i < sessions.size() && pairs.size() < 5; i++) {
        ShapeReference.Result a = sessions.get(i - 1);
        ShapeReference.Result b = sessions.get(i);
        long t = (a.endMs() + b.startMs()) / 2;
        // less than a gap from both; closed at the coordinator (end + gap + slice < watermark);
        // accepted by the node (slice end + lateness > watermark, watermark ~ end - delay)
        if (b.startMs() - a.endMs() < 3_900 && b.endMs() < end - 5_000 && t > end - 9_000) {
          pairs.add(new ShapeReference.Result[] {a, b});
        }
      }
    }
    assertThat(pairs).as("closed session pairs to bridge").isNotEmpty();
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofSeconds(2))
        .until(
            () -> {
              List<String> keys = new ArrayList<>();
              for (ConsumerRecord<byte[], byte[]> r :
                  TopicReader.readAll(
                      broker.bootstrapServers(), job.topics().results(), Duration.ofSeconds(20))) {
                keys.add(new String(r.key(), StandardCharsets.UTF_8));
              }
              return pairs.stream()
                  .allMatch(
                      p -> keys.contains(p[0].resultKey()) && keys.contains(p[1].resultKey()));
            });
    for (ShapeReference.Result[] p : pairs) {
      long t = (p[0].endMs() + p[1].startMs()) / 2;
      int k = Integer.parseInt(p[0].key().substring(1));
      int partition = k % 4;
      assertThat(reference.accept(partition, p[0].key(), t, 1))
          .as("bridging event accepted")
          .isTrue();
      send(producer, job.topics().events(), partition, p[0].key(), t, 1);
    }
    producer.flush();
  }

  private static Map<String, String> expectedView(Map<String, ShapeReference.Result> expected) {
    Map<String, String> view = new TreeMap<>();
    for (ShapeReference.Result r : expected.values()) {
      view.put(
          r.resultKey(), r.startMs() + ".." + r.endMs() + " n=" + r.count() + " sum=" + r.sum());
    }
    return view;
  }

  /** Latest record per result key, without superseded sessions (an empty aggregate). */
  private static Map<String, String> live(Map<String, List<JsonNode>> written, boolean sessions) {
    Map<String, String> view = new TreeMap<>();
    for (Map.Entry<String, List<JsonNode>> e : written.entrySet()) {
      JsonNode v = e.getValue().get(e.getValue().size() - 1).path("value");
      long count = v.path("event_count").asLong();
      if (count == 0) {
        continue; // superseded (a bridged session), with or without superseded_by
      }
      long start = v.path(sessions ? "session_start_ms" : "window_start_ms").asLong();
      long endMs = v.path(sessions ? "session_end_ms" : "window_end_ms").asLong();
      view.put(
          e.getKey(),
          start + ".." + endMs + " n=" + count + " sum=" + v.path("sum_value").asDouble());
    }
    return view;
  }

  private KafkaProducer<byte[], byte[]> producer() {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
  }

  private static void send(
      KafkaProducer<byte[], byte[]> producer,
      String topic,
      int partition,
      String key,
      long t,
      double value) {
    Map<String, Object> event = new HashMap<>();
    event.put("key", key);
    event.put("ts", t);
    event.put("value", value);
    try {
      producer.send(
          new ProducerRecord<>(
              topic,
              partition,
              t,
              key.getBytes(StandardCharsets.UTF_8),
              JSON.writeValueAsBytes(event)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static JsonNode parse(byte[] value) {
    try {
      return JSON.readTree(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

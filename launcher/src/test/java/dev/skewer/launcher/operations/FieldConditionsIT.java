package dev.skewer.launcher.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.skewer.core.event.DlqReason;
import dev.skewer.core.job.JobSpec;
import dev.skewer.launcher.local.LocalCluster;
import dev.skewer.stage.StageMetrics;
import dev.skewer.testkit.kafka.BrokerFixture;
import dev.skewer.testkit.kafka.EmbeddedKafka;
import dev.skewer.testkit.kafka.TopicReader;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

/**
 * Field conditions on a real broker, each ending in the invariant that every event sent is in
 * exactly one of a result, the late topic and the DLQ (per key: the results' event counts, the late
 * records and the DLQ records add up to what was sent; no (result key, revision) twice):
 *
 * <ul>
 *   <li>a partition that goes quiet while the others go on: the tail of its last window is in the
 *       results, not lost; when it wakes up with old events they are counted or routed late;
 *   <li>a 2 MiB record that the input topic takes but the DLQ topic (1 MiB) cannot: it reaches the
 *       DLQ cut to fit, with its reason, original size and source offset in headers;
 *   <li>a DLQ produce that keeps failing (the topic's limit lowered below any record): the node
 *       reports not-ready and counts the failures, loses nothing, and catches up once the topic is
 *       repaired.
 * </ul>
 */
class FieldConditionsIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int PARTITIONS = 4;
  private static final String TRUNCATED_HEADER = "skewer.truncated";
  private static final String ORIGINAL_VALUE_BYTES_HEADER = "skewer.original.value.bytes";

  /** {@code /value}'s sum, min and max; windows finalized after 4 s of idleness. */
  private static JobSpec job(String name) {
    return ShortWindowJob.named(name)
        .eventsPartitions(PARTITIONS)
        .noDistinct()
        .noQuantile()
        .finalizeAfterIdle(Duration.ofSeconds(4))
        .spec();
  }

  /** What was sent, per key (the bad records under their partition's pseudo key). */
  private static final class Sent {
    final Map<String, Long> perKey = new HashMap<>();
    long total;

    void add(String key) {
      perKey.merge(key, 1L, Long::sum);
      total++;
    }
  }

  private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 4 * 1024 * 1024);
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
  }

  private static void send(
      KafkaProducer<byte[], byte[]> producer, JobSpec job, int partition, String key, long ts)
      throws Exception {
    byte[] value =
        ("{\"key\":\"" + key + "\",\"ts\":" + ts + ",\"value\":1}")
            .getBytes(StandardCharsets.UTF_8);
    producer
        .send(new ProducerRecord<>(job.topics().events(), partition, ts, null, value))
        .get(30, TimeUnit.SECONDS);
  }

  private static void createEventsTopic(BrokerFixture broker, JobSpec job) {
    broker
        .kafka()
        .createTopic(
            job.topics().events(),
            PARTITIONS,
            Map.of(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, Integer.toString(4 * 1024 * 1024)));
    broker.provision(job);
  }

  @Test
  void shouldCountAnIdlePartitionsTailRouteItsWakeUpAndCutAnOversizedRecordToFitTheDlq()
      throws Exception {
    JobSpec job = job("field1");
    try (BrokerFixture broker = BrokerFixture.start()) {
      EmbeddedKafka kafka = broker.kafka();
      createEventsTopic(broker, job);
      Sent sent = new Sent();
      try (LocalCluster cluster =
              LocalCluster.start(
                  job,
                  broker.settings(),
                  2,
                  1,
                  false,
                  0,
                  new SimpleMeterRegistry(),
                  Clock.systemUTC());
          KafkaProducer<byte[], byte[]> producer = producer(kafka.bootstrapServers())) {
        // phase A, 6 s: every partition sends in real time
        long start = System.currentTimeMillis();
        int i = 0;
        while (System.currentTimeMillis() - start < 6_000) {
          for (int p = 0; p < PARTITIONS; p++) {
            String key = "k" + p + "-" + (i % 3);
            send(producer, job, p, key, System.currentTimeMillis());
            sent.add(key);
          }
          i++;
          Thread.sleep(20);
        }
        long quietFrom = System.currentTimeMillis();
        // phase B, 8 s: partition 3 is quiet (its last window must still be counted); partition 1
        // receives one 2 MiB record that the 1 MiB DLQ topic cannot hold as it is
        boolean big = false;
        while (System.currentTimeMillis() - quietFrom < 8_000) {
          for (int p = 0; p < PARTITIONS - 1; p++) {
            String key = "k" + p + "-" + (i % 3);
            send(producer, job, p, key, System.currentTimeMillis());
            sent.add(key);
          }
          if (!big && System.currentTimeMillis() - quietFrom > 3_000) {
            byte[] huge = new byte[2 * 1024 * 1024];
            Arrays.fill(huge, (byte) 'x');
            producer
                .send(new ProducerRecord<>(job.topics().events(), 1, null, huge))
                .get(30, TimeUnit.SECONDS);
            sent.add("dlq");
            big = true;
          }
          i++;
          Thread.sleep(20);
        }
        // partition 3 wakes up with events of its last windows (far behind the others)
        for (int j = 0; j < 50; j++) {
          String key = "k3-" + (j % 3);
          send(producer, job, 3, key, quietFrom - 3_000 + j * 40L);
          sent.add(key);
        }
        Outcome outcome = awaitAccounted(kafka, job, sent);

        // then every event is in exactly one place, nothing was lost at idleness
        assertThat(outcome.dlq).hasSize(1);
        ConsumerRecord<byte[], byte[]> cut = outcome.dlq.get(0);
        assertThat(header(cut, DlqReason.HEADER)).isEqualTo(DlqReason.TOO_LARGE.code());
        assertThat(header(cut, TRUNCATED_HEADER)).isEqualTo("value");
        assertThat(header(cut, ORIGINAL_VALUE_BYTES_HEADER))
            .isEqualTo(Integer.toString(2 * 1024 * 1024));
        assertThat(header(cut, "skewer.source.partition")).isEqualTo("1");
        assertThat(header(cut, "skewer.source.offset")).isNotNull();
        assertThat(cut.value().length).isBetween(900_000, 1_048_576);
        assertThat(outcome.countedPerKey.getOrDefault("k3-0", 0L))
            .as("the quiet partition's keys are in the results")
            .isPositive();
        assertThat(cluster.nodes().stream().mapToLong(n -> n.sendFailures()).sum()).isZero();
      }
    }
  }

  @Test
  void shouldReportNotReadyWhileTheDlqRefusesEveryRecordAndLoseNothing() throws Exception {
    JobSpec job = job("field2");
    try (BrokerFixture broker = BrokerFixture.start()) {
      EmbeddedKafka kafka = broker.kafka();
      createEventsTopic(broker, job);
      Sent sent = new Sent();
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      try (LocalCluster cluster =
              LocalCluster.start(
                  job, broker.settings(), 1, 1, false, 0, registry, Clock.systemUTC());
          KafkaProducer<byte[], byte[]> producer = producer(kafka.bootstrapServers())) {
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> cluster.nodes().get(0).readiness().ready());
        // the DLQ topic refuses anything: a persistent produce failure
        setDlqLimit(broker.admin(), job, "64");
        long start = System.currentTimeMillis();
        int i = 0;
        boolean bad = false;
        while (System.currentTimeMillis() - start < 6_000) {
          for (int p = 0; p < PARTITIONS; p++) {
            String key = "k" + p + "-" + (i % 3);
            send(producer, job, p, key, System.currentTimeMillis());
            sent.add(key);
          }
          if (!bad && System.currentTimeMillis() - start > 1_000) {
            producer
                .send(
                    new ProducerRecord<>(
                        job.topics().events(),
                        0,
                        null,
                        "{not json".getBytes(StandardCharsets.UTF_8)))
                .get(30, TimeUnit.SECONDS);
            sent.add("dlq");
            bad = true;
          }
          i++;
          Thread.sleep(20);
        }

        // then the node says it is not ready, and why, and counts the failures
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () ->
                    !cluster.nodes().get(0).readiness().ready()
                        && cluster.nodes().get(0).readiness().detail().contains("failing"));
        assertThat(cluster.nodes().get(0).sendFailures()).isPositive();
        assertThat(gauge(registry, StageMetrics.FAILING, "node")).isGreaterThanOrEqualTo(1);

        // when the topic is repaired, it catches up: ready again, everything accounted once
        setDlqLimit(broker.admin(), job, null);
        await()
            .atMost(Duration.ofSeconds(120))
            .until(() -> cluster.nodes().get(0).readiness().ready());
        Outcome outcome = awaitAccounted(kafka, job, sent);
        assertThat(outcome.dlq).hasSize(1);
        assertThat(header(outcome.dlq.get(0), DlqReason.HEADER))
            .isEqualTo(DlqReason.NOT_JSON.code());
      }
    }
  }

  private static void setDlqLimit(Admin admin, JobSpec job, String bytes) throws Exception {
    ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, job.topics().dlq());
    AlterConfigOp op =
        bytes == null
            ? new AlterConfigOp(
                new ConfigEntry(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, ""),
                AlterConfigOp.OpType.DELETE)
            : new AlterConfigOp(
                new ConfigEntry(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, bytes),
                AlterConfigOp.OpType.SET);
    admin.incrementalAlterConfigs(Map.of(topic, List.of(op))).all().get(30, TimeUnit.SECONDS);
  }

  private static double gauge(SimpleMeterRegistry registry, String name, String tag) {
    double sum = 0;
    for (Meter m : registry.find(name).tagKeys(tag).meters()) {
      for (var measurement : m.measure()) {
        sum += measurement.getValue();
      }
    }
    return sum;
  }

  /** Where the events went: result counts (latest revision) per key, late and DLQ records. */
  private record Outcome(
      Map<String, Long> countedPerKey,
      List<ConsumerRecord<byte[], byte[]>> late,
      List<ConsumerRecord<byte[], byte[]>> dlq) {}

  /**
   * Waits until every event sent is accounted for exactly once, then checks it per key and that no
   * (result key, revision) was written twice.
   */
  private static Outcome awaitAccounted(EmbeddedKafka kafka, JobSpec job, Sent sent)
      throws Exception {
    Outcome[] last = {null};
    try {
      await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofSeconds(2))
          .until(
              () -> {
                last[0] = outcome(kafka, job);
                long counted = last[0].countedPerKey.values().stream().mapToLong(x -> x).sum();
                return counted + last[0].late.size() + last[0].dlq.size() >= sent.total;
              });
    } catch (ConditionTimeoutException e) {
      // fall through: the per-key comparison below says what is missing
    }
    Outcome o = last[0] != null ? last[0] : outcome(kafka, job);
    Map<String, Long> accounted = new HashMap<>(o.countedPerKey);
    for (ConsumerRecord<byte[], byte[]> r : o.late) {
      accounted.merge(keyOf(r.value()), 1L, Long::sum);
    }
    accounted.merge("dlq", (long) o.dlq.size(), Long::sum);
    accounted.values().removeIf(v -> v == 0);
    assertThat(accounted).as("per key: results + late + DLQ = sent").isEqualTo(sent.perKey);
    return o;
  }

  private static Outcome outcome(EmbeddedKafka kafka, JobSpec job) throws Exception {
    String bootstrap = kafka.bootstrapServers();
    Map<String, long[]> latest = new HashMap<>(); // result key -> {revision, count}
    Set<String> seen = new HashSet<>();
    Map<String, String> keyOfResult = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r :
        TopicReader.readAll(bootstrap, job.topics().results(), Duration.ofSeconds(10))) {
      JsonNode root = JSON.readTree(r.value());
      JsonNode v = root.path("value");
      String resultKey = new String(r.key(), StandardCharsets.UTF_8);
      long revision = v.path("revision").asLong();
      assertThat(seen.add(resultKey + "@" + revision))
          .as("(result key, revision) written once: %s revision %d", resultKey, revision)
          .isTrue();
      long[] held = latest.get(resultKey);
      if (held == null || revision > held[0]) {
        latest.put(resultKey, new long[] {revision, v.path("event_count").asLong()});
        keyOfResult.put(resultKey, root.path(job.output().keyField()).asText());
      }
    }
    Map<String, Long> perKey = new HashMap<>();
    latest.forEach((rk, v) -> perKey.merge(keyOfResult.get(rk), v[1], Long::sum));
    List<ConsumerRecord<byte[], byte[]>> late =
        new ArrayList<>(
            TopicReader.readAll(bootstrap, job.topics().late(), Duration.ofSeconds(10)));
    List<ConsumerRecord<byte[], byte[]>> dlq =
        new ArrayList<>(TopicReader.readAll(bootstrap, job.topics().dlq(), Duration.ofSeconds(10)));
    return new Outcome(perKey, late, dlq);
  }

  private static String keyOf(byte[] json) throws Exception {
    return JSON.readTree(json).path("key").asText();
  }

  private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
    Header h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }
}

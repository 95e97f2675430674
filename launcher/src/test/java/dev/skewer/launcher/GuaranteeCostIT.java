package dev.skewer.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.coordinator.CoordinatorRuntime;
import dev.skewer.coordinator.CoordinatorSettings;
import dev.skewer.coordinator.hotkey.HotKeySettings;
import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.checkpoint.InMemoryCheckpointStore;
import dev.skewer.core.job.Guarantee;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.TopicsSpec;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.core.kafka.TopicProvisioner;
import dev.skewer.launcher.cli.JobResources;
import dev.skewer.loadgen.produce.LoadProducer;
import dev.skewer.loadgen.produce.LoadSummary;
import dev.skewer.loadgen.reference.ExactReference;
import dev.skewer.loadgen.workload.Workload;
import dev.skewer.loadgen.workload.WorkloadSpec;
import dev.skewer.node.NodeRuntime;
import dev.skewer.node.NodeSettings;
import dev.skewer.testkit.kafka.EmbeddedKafka;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A measurement, off by default ({@code -Dskewer.guarantee.cost=true}): W1 end to end with both
 * guarantees side by side, in one session, at several checkpoint intervals — the one thing {@code
 * exactly_once} results wait for. W1 ({@code -Dskewer.guarantee.cost.events}, default 1,000,000) is
 * loaded once into the embedded broker; then, round after round ({@code ...rounds}, default 3), for
 * each interval ({@code ...intervals}, default {@code 5s,1s}) and each guarantee, a fresh cluster
 * of 2 nodes and 1 coordinator (one JVM, no Hazelcast, own groups and output topics) is timed from
 * its start to the broker timestamp of the last result and to the moment the last result is visible
 * to a {@code read_committed} reader. Every run must match the reference.
 */
@EnabledIfSystemProperty(named = "skewer.guarantee.cost", matches = "true")
class GuaranteeCostIT {

  private record Sample(double toLastResult, double toVisible) {}

  @Test
  void shouldMeasureBothGuaranteesSideBySide() throws Exception {
    long events = Long.getLong("skewer.guarantee.cost.events", 1_000_000);
    int rounds = Integer.getInteger("skewer.guarantee.cost.rounds", 3);
    List<Duration> intervals = new ArrayList<>();
    for (String s : System.getProperty("skewer.guarantee.cost.intervals", "5s,1s").split(",")) {
      intervals.add(Duration.ofMillis(Long.parseLong(s.trim().replace("s", "")) * 1000));
    }
    JobSpec base = JobResources.load("w1.yaml");
    Map<String, List<Sample>> samples = new LinkedHashMap<>();
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      KafkaSettings settings = KafkaSettings.of(kafka.bootstrapServers());
      try (Admin admin = Admin.create(settings.adminConfig())) {
        TopicProvisioner.ensureTopics(admin, base.topics(), Duration.ofSeconds(60));
      }
      ExactReference reference =
          ExactReference.of(Duration.ofSeconds(10), Duration.ofSeconds(2), Duration.ZERO, 4, null);
      LoadSummary load;
      try (LoadProducer producer =
          LoadProducer.builder(kafka.bootstrapServers(), base.topics().events())
              .reference(reference)
              .build()) {
        load = producer.run(Workload.of(WorkloadSpec.w1(events, 1)));
      }
      assertThat(load.sent()).isEqualTo(events);
      assertThat(load.failed()).as("events the broker did not acknowledge").isZero();
      long expectedWindows = reference.windows().size();
      int run = 0;
      for (int round = 1; round <= rounds; round++) {
        for (Duration interval : intervals) {
          for (Guarantee g : Guarantee.values()) {
            run++;
            JobSpec job = perRun(base, run, g);
            try (Admin admin = Admin.create(settings.adminConfig())) {
              TopicProvisioner.ensureTopics(admin, job.topics(), Duration.ofSeconds(60));
            }
            Sample s = runOnce(kafka, job, interval, run, expectedWindows, reference, events);
            samples
                .computeIfAbsent(g + " @ " + interval.toSeconds() + "s", k -> new ArrayList<>())
                .add(s);
            System.err.printf(
                "guarantee cost: round %d, %s, checkpoints every %ds: %,.0f events/s to the last"
                    + " result, %,.0f to the last result visible%n",
                round, g, interval.toSeconds(), s.toLastResult(), s.toVisible());
          }
        }
      }
    }
    StringBuilder table =
        new StringBuilder(
            String.format(
                "%nW1 end to end, %,d events, 2 nodes + 1 coordinator, %d rounds (median [min-max]"
                    + " events/s):%n",
                events, rounds));
    samples.forEach(
        (config, list) ->
            table.append(
                String.format(
                    "  %-28s to the last result %s | to the last result visible %s%n",
                    config,
                    summary(list.stream().map(Sample::toLastResult).toList()),
                    summary(list.stream().map(Sample::toVisible).toList()))));
    System.err.println(table);
  }

  private static Sample runOnce(
      EmbeddedKafka kafka,
      JobSpec job,
      Duration interval,
      int run,
      long expectedWindows,
      ExactReference reference,
      long events)
      throws Exception {
    KafkaSettings settings = KafkaSettings.of(kafka.bootstrapServers());
    CheckpointStore store = new InMemoryCheckpointStore();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    List<AutoCloseable> cluster = new ArrayList<>();
    long startMs = System.currentTimeMillis();
    try {
      cluster.add(
          CoordinatorRuntime.start(
              new CoordinatorSettings(
                  "coordinator-1",
                  job,
                  settings,
                  "gc-coordinators-" + run,
                  CoordinatorSettings.DEFAULT_HTTP_HOST,
                  CoordinatorSettings.NO_HTTP,
                  CoordinatorSettings.DEFAULT_MAX_PENDING_RECORDS,
                  interval,
                  HotKeySettings.defaults(),
                  true),
              null,
              registry,
              Clock.systemUTC(),
              store));
      for (int i = 1; i <= 2; i++) {
        cluster.add(
            NodeRuntime.start(
                new NodeSettings(
                    "node-" + i,
                    job,
                    settings,
                    "gc-nodes-" + run,
                    NodeSettings.DEFAULT_MAX_PENDING_RECORDS,
                    NodeSettings.DEFAULT_TICK_INTERVAL,
                    interval,
                    NodeSettings.DEFAULT_HTTP_HOST,
                    NodeSettings.NO_HTTP),
                registry,
                Clock.systemUTC(),
                store,
                null));
      }
      long upMs = System.currentTimeMillis();
      long[] seen = awaitResults(kafka, job.topics().results(), expectedWindows, startMs);
      assertThat(seen[0]).as("(key, window) results").isEqualTo(expectedWindows);
      assertThat(seen[1]).as("events counted").isEqualTo(reference.totalCount());
      return new Sample(
          events * 1000.0 / Math.max(1, seen[2] - upMs),
          events * 1000.0 / Math.max(1, seen[3] - upMs));
    } finally {
      for (int i = cluster.size() - 1; i >= 0; i--) {
        cluster.get(i).close();
      }
    }
  }

  /** {distinct results, events counted, last broker timestamp, wall time the last appeared}. */
  private static long[] awaitResults(
      EmbeddedKafka kafka, String topic, long expectedWindows, long sinceMs) {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 20);
    config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
    Set<String> keys = new HashSet<>();
    long count = 0;
    long last = sinceMs;
    long visible = sinceMs;
    long deadline = System.currentTimeMillis() + Duration.ofMinutes(5).toMillis();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      consumer
          .partitionsFor(topic, Duration.ofSeconds(30))
          .forEach(i -> parts.add(new TopicPartition(topic, i.partition())));
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      while (keys.size() < expectedWindows && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
          if (keys.add(new String(r.key(), StandardCharsets.UTF_8))) {
            visible = System.currentTimeMillis();
            String v = new String(r.value(), StandardCharsets.UTF_8);
            int i = v.indexOf("\"event_count\":") + "\"event_count\":".length();
            int j = i;
            while (Character.isDigit(v.charAt(j))) {
              j++;
            }
            count += Long.parseLong(v.substring(i, j));
          }
          last = Math.max(last, r.timestamp());
        }
      }
    }
    return new long[] {keys.size(), count, last, visible};
  }

  private static JobSpec perRun(JobSpec base, int run, Guarantee g) {
    TopicsSpec t = base.topics();
    return new JobSpec(
        base.name(),
        base.input(),
        base.window(),
        base.watermark(),
        base.allowedLateness(),
        base.sketches(),
        base.output(),
        new TopicsSpec(
            t.events(),
            t.eventsPartitions(),
            t.partials() + ".gc" + run,
            t.partialsPartitions(),
            t.results() + ".gc" + run,
            t.late() + ".gc" + run,
            t.dlq() + ".gc" + run,
            t.replicationFactor()),
        base.topK(),
        g);
  }

  private static String summary(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(Double::compare);
    int n = sorted.size();
    double median =
        n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    return String.format("%,.0f [%,.0f-%,.0f]", median, sorted.get(0), sorted.get(n - 1));
  }
}

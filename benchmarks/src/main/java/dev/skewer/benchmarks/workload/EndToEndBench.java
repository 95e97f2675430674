package dev.skewer.benchmarks.workload;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.TopicsSpec;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.core.kafka.TopicProvisioner;
import dev.skewer.launcher.cli.JobResources;
import dev.skewer.launcher.local.LocalCluster;
import dev.skewer.loadgen.produce.LoadProducer;
import dev.skewer.loadgen.produce.LoadSummary;
import dev.skewer.loadgen.reference.ExactReference;
import dev.skewer.loadgen.workload.Workload;
import dev.skewer.loadgen.workload.WorkloadSpec;
import dev.skewer.testkit.kafka.EmbeddedKafka;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code skewer bench e2e}: W1 loaded as JSON into {@code events} (4 partitions) on the embedded
 * broker; then per run a fresh cluster (2 nodes, 1 coordinator, own consumer groups and output
 * topics) is timed from start to the broker timestamp of the last final result, and to the moment
 * the last result is visible to a {@code read_committed} reader. The job's guarantee comes from
 * {@code examples/w1.yaml} and {@code SKEWER_GUARANTEE}.
 */
@Command(
    name = "e2e",
    mixinStandardHelpOptions = true,
    description = "W1 end-to-end: JSON events on the embedded broker to final results.")
public final class EndToEndBench implements Callable<Integer> {

  @Option(
      names = "--events",
      defaultValue = "1000000",
      description = "Events. Default: ${DEFAULT-VALUE}.")
  long events;

  @Option(
      names = "--runs",
      defaultValue = "3",
      description = "Timed runs. Default: ${DEFAULT-VALUE}.")
  int runs;

  @Option(names = "--nodes", defaultValue = "2", description = "Nodes. Default: ${DEFAULT-VALUE}.")
  int nodes;

  @Option(
      names = "--seed",
      defaultValue = "1",
      description = "Workload seed. Default: ${DEFAULT-VALUE}.")
  long seed;

  @Override
  @SuppressWarnings("try") // the cluster only has to run while the results are awaited
  public Integer call() throws Exception {
    JobSpec base = JobResources.load("w1.yaml");
    System.out.println("Starting the embedded broker (KRaft)...");
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      KafkaSettings settings = KafkaSettings.of(kafka.bootstrapServers());
      try (Admin admin = Admin.create(settings.adminConfig())) {
        TopicProvisioner.ensureTopics(admin, base.topics(), Duration.ofSeconds(60));
      }
      ExactReference reference =
          ExactReference.of(Duration.ofSeconds(10), Duration.ofSeconds(2), Duration.ZERO, 4, null);
      System.out.printf(
          "Loading W1: %,d JSON events into '%s'...%n", events, base.topics().events());
      LoadSummary load;
      try (LoadProducer producer =
          LoadProducer.builder(kafka.bootstrapServers(), base.topics().events())
              .job(base)
              .reference(reference)
              .progress(
                  p -> System.out.printf("  %,d sent (%,.0f/s)%n", p.sent(), p.eventsPerSecond()))
              .build()) {
        load = producer.run(Workload.of(WorkloadSpec.w1(events, seed)));
      }
      long expectedWindows = reference.windows().size();
      System.out.printf(
          "Loaded %,d events in %.1fs; reference: %,d (key, window) results.%n",
          load.sent(), load.elapsed().toMillis() / 1000.0, expectedWindows);

      List<Double> rates = new ArrayList<>();
      List<Double> ratesWithStart = new ArrayList<>();
      List<Double> ratesVisible = new ArrayList<>();
      boolean ok = true;
      for (int run = 1; run <= runs; run++) {
        JobSpec job = perRun(base, run);
        try (Admin admin = Admin.create(settings.adminConfig())) {
          TopicProvisioner.ensureTopics(admin, job.topics(), Duration.ofSeconds(60));
        }
        long startMs = System.currentTimeMillis();
        Run r;
        try (LocalCluster cluster =
            LocalCluster.start(
                job, settings, nodes, 1, false, 0, new SimpleMeterRegistry(), Clock.systemUTC())) {
          long upMs = System.currentTimeMillis();
          r = awaitResults(kafka, job, expectedWindows, upMs);
          double rate = events * 1000.0 / Math.max(1, r.lastResultMs - upMs);
          double rateWithStart = events * 1000.0 / Math.max(1, r.lastResultMs - startMs);
          double rateVisible = events * 1000.0 / Math.max(1, r.visibleMs - upMs);
          boolean runOk = r.windows == expectedWindows && r.count == reference.totalCount();
          ok &= runOk;
          rates.add(rate);
          ratesWithStart.add(rateWithStart);
          ratesVisible.add(rateVisible);
          System.out.printf(
              "run %d: %,.0f events/s (cluster start to last result %.2fs; with start-up %,.0f events/s; to the last result visible read_committed %.2fs = %,.0f events/s), %,d results, total count %,d%s%n",
              run,
              rate,
              (r.lastResultMs - upMs) / 1000.0,
              rateWithStart,
              (r.visibleMs - upMs) / 1000.0,
              rateVisible,
              r.windows,
              r.count,
              runOk ? ", matches the reference" : ", MISMATCH");
        }
      }
      System.out.printf(
          "W1 end-to-end, %,d events, %d nodes + 1 coordinator, %s, median of %d: %,.0f events/s [%,.0f-%,.0f] (with start-up: %,.0f; to the last result visible: %,.0f [%,.0f-%,.0f])%n",
          events,
          nodes,
          base.guarantee(),
          runs,
          EngineBench.median(rates),
          Collections.min(rates),
          Collections.max(rates),
          EngineBench.median(ratesWithStart),
          EngineBench.median(ratesVisible),
          Collections.min(ratesVisible),
          Collections.max(ratesVisible));
      return ok ? 0 : 1;
    }
  }

  /**
   * One run's results: distinct (key, window)s, their total count, the broker timestamp of the last
   * one and the wall-clock time it became visible to a {@code read_committed} reader (with {@code
   * exactly_once}, results become visible when their transaction commits, after their timestamp).
   */
  private record Run(long windows, long count, long lastResultMs, long visibleMs) {}

  /**
   * Waits for every expected (key, window) to have a result, then reads them. While the cluster
   * runs, the reader only asks for the results' last stable offsets every 100 ms (as cheap as
   * polling end offsets): reading and decoding the results concurrently would take CPU from the
   * cluster on a small machine and slow what is measured. Once the stable offsets add up to the
   * expected count, the results are read {@code read_committed} (still sampling the stable offsets
   * while some are missing); the last result became visible at the first sample whose stable
   * offsets cover the last new (key, window) of every partition.
   */
  private static Run awaitResults(
      EmbeddedKafka kafka, JobSpec job, long expectedWindows, long sinceMs)
      throws InterruptedException {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
    String topic = job.topics().results();
    Set<String> keys = new HashSet<>();
    Map<TopicPartition, Long> lastNewOffset = new HashMap<>();
    List<StableOffsets> samples = new ArrayList<>();
    long last = sinceMs;
    long count = 0;
    long deadline = System.currentTimeMillis() + Duration.ofMinutes(10).toMillis();
    long lastProgress = System.currentTimeMillis();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      consumer
          .partitionsFor(topic, Duration.ofSeconds(30))
          .forEach(i -> parts.add(new TopicPartition(topic, i.partition())));
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      while (System.currentTimeMillis() < deadline) {
        StableOffsets sample = StableOffsets.of(consumer, parts);
        samples.add(sample);
        if (sample.total() >= expectedWindows) {
          break;
        }
        if (System.currentTimeMillis() - lastProgress > 5_000) {
          System.out.printf("  %,d / %,d results...%n", sample.total(), expectedWindows);
          lastProgress = System.currentTimeMillis();
        }
        Thread.sleep(100);
      }
      long lastSample = System.currentTimeMillis();
      while (keys.size() < expectedWindows && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
          if (keys.add(new String(r.key(), StandardCharsets.UTF_8))) {
            count += eventCount(new String(r.value(), StandardCharsets.UTF_8));
            lastNewOffset.put(new TopicPartition(r.topic(), r.partition()), r.offset());
          }
          last = Math.max(last, r.timestamp());
        }
        if (System.currentTimeMillis() - lastSample >= 100) {
          samples.add(StableOffsets.of(consumer, parts));
          lastSample = System.currentTimeMillis();
        }
      }
      samples.add(StableOffsets.of(consumer, parts));
    }
    long visible =
        samples.stream()
            .filter(s -> s.covers(lastNewOffset))
            .mapToLong(StableOffsets::atMs)
            .findFirst()
            .orElse(System.currentTimeMillis());
    return new Run(keys.size(), count, last, visible);
  }

  /** The results' last stable offset per partition, as a {@code read_committed} reader saw them. */
  private record StableOffsets(long atMs, Map<TopicPartition, Long> offsets) {

    static StableOffsets of(KafkaConsumer<?, ?> consumer, List<TopicPartition> parts) {
      return new StableOffsets(System.currentTimeMillis(), consumer.endOffsets(parts));
    }

    long total() {
      return offsets.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Whether a reader could see every one of these records at this sample. */
    boolean covers(Map<TopicPartition, Long> lastOffsets) {
      return lastOffsets.entrySet().stream()
          .allMatch(e -> offsets.getOrDefault(e.getKey(), 0L) > e.getValue());
    }
  }

  private static long eventCount(String v) {
    int i = v.indexOf("\"event_count\":");
    if (i < 0) {
      return 0;
    }
    int j = i + "\"event_count\":".length();
    int k = j;
    while (k < v.length() && Character.isDigit(v.charAt(k))) {
      k++;
    }
    return Long.parseLong(v.substring(j, k));
  }

  /** The job with per-run output topics, so runs do not read each other's results. */
  private static JobSpec perRun(JobSpec job, int run) {
    TopicsSpec t = job.topics();
    TopicsSpec topics =
        new TopicsSpec(
            t.events(),
            t.eventsPartitions(),
            t.partials() + ".run" + run,
            t.partialsPartitions(),
            t.results() + ".run" + run,
            t.late() + ".run" + run,
            t.dlq() + ".run" + run,
            t.replicationFactor());
    return job.withTopics(topics);
  }
}

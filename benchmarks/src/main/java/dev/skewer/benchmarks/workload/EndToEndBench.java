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
import dev.skewer.testkit.kafka.TopicReader;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code skewer bench e2e}: W1 loaded as JSON into {@code events} (4 partitions) on the embedded
 * broker; then per run a fresh cluster (2 nodes, 1 coordinator, own consumer groups and output
 * topics) is timed from start to the broker timestamp of the last final result.
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
          boolean runOk = r.windows == expectedWindows && r.count == reference.totalCount();
          ok &= runOk;
          rates.add(rate);
          ratesWithStart.add(rateWithStart);
          System.out.printf(
              "run %d: %,.0f events/s (cluster start to last result %.2fs; with start-up %,.0f events/s), %,d results, total count %,d%s%n",
              run,
              rate,
              (r.lastResultMs - upMs) / 1000.0,
              rateWithStart,
              r.windows,
              r.count,
              runOk ? ", matches the reference" : ", MISMATCH");
        }
      }
      System.out.printf(
          "W1 end-to-end, %,d events, %d nodes + 1 coordinator, median of %d: %,.0f events/s [%,.0f-%,.0f] (with start-up: %,.0f)%n",
          events,
          nodes,
          runs,
          EngineBench.median(rates),
          Collections.min(rates),
          Collections.max(rates),
          EngineBench.median(ratesWithStart));
      return ok ? 0 : 1;
    }
  }

  private record Run(long windows, long count, long lastResultMs) {}

  private static Run awaitResults(
      EmbeddedKafka kafka, JobSpec job, long expectedWindows, long sinceMs) throws Exception {
    long deadline = System.currentTimeMillis() + Duration.ofMinutes(10).toMillis();
    long lastProgress = 0;
    while (System.currentTimeMillis() < deadline) {
      long written = endOffset(kafka, job.topics().results());
      if (written >= expectedWindows) {
        break;
      }
      if (System.currentTimeMillis() - lastProgress > 5_000) {
        System.out.printf("  %,d / %,d results...%n", written, expectedWindows);
        lastProgress = System.currentTimeMillis();
      }
      Thread.sleep(100);
    }
    List<ConsumerRecord<byte[], byte[]>> results =
        TopicReader.readAll(
            kafka.bootstrapServers(), job.topics().results(), Duration.ofSeconds(60));
    Set<String> keys = new HashSet<>();
    long last = sinceMs;
    long count = 0;
    for (ConsumerRecord<byte[], byte[]> r : results) {
      if (keys.add(new String(r.key(), StandardCharsets.UTF_8))) {
        String v = new String(r.value(), StandardCharsets.UTF_8);
        int i = v.indexOf("\"event_count\":");
        if (i >= 0) {
          int j = i + "\"event_count\":".length();
          int k = j;
          while (k < v.length() && Character.isDigit(v.charAt(k))) {
            k++;
          }
          count += Long.parseLong(v.substring(j, k));
        }
      }
      last = Math.max(last, r.timestamp());
    }
    return new Run(keys.size(), count, last);
  }

  private static long endOffset(EmbeddedKafka kafka, String topic) throws Exception {
    Admin admin = kafka.admin();
    var desc = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
    Map<TopicPartition, OffsetSpec> specs = new java.util.HashMap<>();
    desc.partitions()
        .forEach(p -> specs.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
    ListOffsetsResult r = admin.listOffsets(specs);
    long sum = 0;
    for (var e : r.all().get().values()) {
      sum += e.offset();
    }
    return sum;
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
    return new JobSpec(
        job.name(),
        job.input(),
        job.window(),
        job.watermark(),
        job.allowedLateness(),
        job.sketches(),
        job.output(),
        topics,
        job.topK());
  }
}

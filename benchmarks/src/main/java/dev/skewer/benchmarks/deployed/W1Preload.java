package dev.skewer.benchmarks.deployed;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import dev.skewer.loadgen.produce.LoadProducer;
import dev.skewer.loadgen.produce.LoadSummary;
import dev.skewer.loadgen.reference.ExactReference;
import dev.skewer.loadgen.workload.Workload;
import dev.skewer.loadgen.workload.WorkloadSpec;
import dev.skewer.testkit.kafka.KafkaBrokerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.config.TopicConfig;

/**
 * W1 preloaded as JSON into its events topic (4 partitions, no time-based retention: W1's
 * timestamps are in 2023), with the exact reference of what was sent: what {@code bench deployed}
 * and the peer races run on, so they race on the same events.
 */
public final class W1Preload {

  /** The events topic and the exact reference of the events sent to it. */
  public record Loaded(String eventsTopic, ExactReference reference) {}

  private W1Preload() {}

  /**
   * Creates W1's events topic on {@code broker} and sends W1's {@code events} events of {@code
   * seed}, printing progress; writes the job file it reads the topic's name from into {@code
   * workDir}.
   */
  public static Loaded load(KafkaBrokerProcess broker, Path workDir, long events, long seed)
      throws Exception {
    Path file = workDir.resolve("w1-load.yaml");
    DeployedCluster.writeW1Job("w1-load", null, DeployedCluster.W1_PARTITIONS, file);
    JobSpec probe = JobSpecLoader.load(file, Map.of());
    String topic = probe.topics().events();
    broker.createTopic(
        topic, probe.topics().eventsPartitions(), Map.of(TopicConfig.RETENTION_MS_CONFIG, "-1"));
    ExactReference reference =
        ExactReference.of(Duration.ofSeconds(10), Duration.ofSeconds(2), Duration.ZERO, 4, null);
    System.out.printf("Loading W1: %,d JSON events into '%s'...%n", events, topic);
    LoadSummary summary;
    try (LoadProducer producer =
        LoadProducer.builder(broker.bootstrapServers(), topic)
            .job(probe)
            .reference(reference)
            .progress(
                p -> System.out.printf("  %,d sent (%,.0f/s)%n", p.sent(), p.eventsPerSecond()))
            .build()) {
      summary = producer.run(Workload.of(WorkloadSpec.w1(events, seed)));
    }
    System.out.printf(
        "Loaded %,d events in %.1fs; the reference has %,d (key, window) results, total count %,d.%n",
        summary.sent(),
        summary.elapsed().toMillis() / 1000.0,
        reference.windows().size(),
        reference.totalCount());
    return new Loaded(topic, reference);
  }
}

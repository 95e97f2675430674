package dev.skewer.launcher.cli;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import dev.skewer.core.kafka.KafkaSettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/** Options shared by the process commands: the job file and how to reach Kafka. */
public final class CommonOptions {

  @Option(
      names = "--job",
      required = true,
      paramLabel = "FILE",
      description = "The job file (YAML); SKEWER_* environment variables override its fields.")
  Path job;

  @Option(
      names = "--bootstrap",
      required = true,
      paramLabel = "HOST:PORT",
      description = "Kafka bootstrap servers.")
  String bootstrap;

  @Option(
      names = {"-X", "--kafka-property"},
      paramLabel = "KEY=VALUE",
      description = "Any Kafka client property (e.g. security.protocol=SSL); repeatable.")
  Map<String, String> kafkaProperties = new LinkedHashMap<>();

  @Option(
      names = "--hz-port",
      paramLabel = "PORT",
      defaultValue = "5701",
      description = "Hazelcast member port (0 = no Hazelcast member). Default: ${DEFAULT-VALUE}.")
  int hazelcastPort;

  @Option(
      names = "--hz-member",
      paramLabel = "HOST:PORT",
      description = "A Hazelcast member to join; repeatable. Default: this member only.")
  List<String> hazelcastMembers = new ArrayList<>();

  @Option(
      names = "--group",
      paramLabel = "GROUP",
      description = "Consumer group id (default: skewer-nodes / skewer-coordinators).")
  String group;

  @Option(
      names = "--checkpoint-interval",
      paramLabel = "DURATION",
      defaultValue = "5s",
      converter = DurationConverter.class,
      description = "How often owned partitions are checkpointed. Default: ${DEFAULT-VALUE}.")
  java.time.Duration checkpointInterval;

  @Option(
      names = "--checkpoint-topic",
      paramLabel = "TOPIC",
      defaultValue = "skewer.checkpoints",
      description = "Compacted topic mirroring the checkpoints. Default: ${DEFAULT-VALUE}.")
  String checkpointTopic;

  @Option(names = "--no-provision", description = "Do not create missing topics at start-up.")
  boolean noProvision;

  JobSpec loadJob() {
    return JobSpecLoader.load(job, System.getenv());
  }

  KafkaSettings kafka() {
    return new KafkaSettings(bootstrap, Map.copyOf(kafkaProperties));
  }
}

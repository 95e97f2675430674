package dev.skewer.launcher.cli;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.loadgen.produce.LoadProducer;
import dev.skewer.loadgen.produce.LoadSummary;
import dev.skewer.loadgen.workload.Workload;
import dev.skewer.loadgen.workload.WorkloadSpec;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code skewer loadgen}: sends a reference or live workload to the job's events topic, salting hot
 * keys as the job's hot-key table says.
 */
@Command(
    name = "loadgen",
    mixinStandardHelpOptions = true,
    description = {
      "Send a workload (w1, w2, w3, demo) to the job's events topic at a target rate.",
      "Events look like {\"key\":\"ad17\",\"user\":\"u123\",\"value\":12.3,\"ts\":<epoch ms>}:"
          + " the job must read its key at /key and its time at /ts (examples/demo.yaml,"
          + " examples/w1.yaml)."
    })
public final class LoadgenCommand implements Callable<Integer> {

  /** Where the generated events carry their key and time. */
  static final String KEY_POINTER = "/key";

  static final String TIME_POINTER = "/ts";

  @Option(
      names = "--job",
      required = true,
      paramLabel = "FILE",
      description =
          "The job file (YAML) the nodes run: its events topic, hot-key topic and salt separator.")
  Path job;

  @Mixin KafkaOptions kafka;

  @Mixin LogOptions log;

  @Spec CommandSpec command;

  @Option(
      names = "--topic",
      paramLabel = "TOPIC",
      description = "Target topic. Default: the job's topics.events.")
  String topic;

  @Option(
      names = "--workload",
      defaultValue = "w1",
      description =
          "w1, w2, w3 (simulated 2023 time) or demo (live time). Default: ${DEFAULT-VALUE}.")
  String workload;

  @Option(
      names = "--events",
      defaultValue = "1000000",
      description = "Events to send. Default: ${DEFAULT-VALUE}.")
  long events;

  @Option(
      names = "--rate",
      defaultValue = "0",
      description = "Events per second, 0 = as fast as possible. Default: ${DEFAULT-VALUE}.")
  double rate;

  @Option(
      names = "--zipf",
      defaultValue = "1.1",
      description = "Zipf exponent for w3. Default: ${DEFAULT-VALUE}.")
  double zipf;

  @Option(
      names = "--hot-key-share",
      defaultValue = "0.2",
      description = "Hot key share for demo. Default: ${DEFAULT-VALUE}.")
  double hotKeyShare;

  @Option(names = "--seed", defaultValue = "1", description = "Seed. Default: ${DEFAULT-VALUE}.")
  long seed;

  @Option(
      names = "--salting",
      defaultValue = "on",
      description =
          "on: spread hot keys over partitions as the published hot-key table says (SaltingPartitioner); off: plain key hashing. Default: ${DEFAULT-VALUE}.")
  String salting;

  @Override
  public Integer call() {
    log.apply();
    JobSpec jobSpec = JobSpecLoader.load(job, EnvironmentDefaults.of(command));
    if (!KEY_POINTER.equals(jobSpec.input().keyPointer())
        || !TIME_POINTER.equals(jobSpec.input().timePointer())) {
      throw new CliException(
          "job "
              + jobSpec.name()
              + " reads its key at "
              + jobSpec.input().keyPointer()
              + " and its time at "
              + jobSpec.input().timePointer()
              + ", but loadgen's events carry them at "
              + KEY_POINTER
              + " and "
              + TIME_POINTER
              + ": the nodes would send every event to the DLQ. Use a job that reads /key and /ts"
              + " (e.g. examples/demo.yaml or examples/w1.yaml).");
    }
    String target = topic == null || topic.isBlank() ? jobSpec.topics().events() : topic;
    KafkaSettings kafkaSettings = kafka.settings();
    WorkloadSpec spec;
    boolean live = false;
    switch (workload.toLowerCase(Locale.ROOT)) {
      case "w1" -> spec = WorkloadSpec.w1(events, seed);
      case "w2" -> spec = WorkloadSpec.w2(events, seed);
      case "w3" -> spec = WorkloadSpec.w3(events, seed, zipf);
      case "demo" -> {
        spec =
            WorkloadSpec.demo(hotKeyShare, Duration.ofSeconds(1), Duration.ofSeconds(30), seed)
                .withEvents(events);
        live = true;
      }
      default ->
          throw new CliException("--workload must be w1, w2, w3 or demo, was '" + workload + "'");
    }
    boolean salt =
        switch (salting.toLowerCase(Locale.ROOT)) {
          case "on" -> true;
          case "off" -> false;
          default -> throw new CliException("--salting must be on or off, was '" + salting + "'");
        };
    LoadProducer.Builder builder =
        LoadProducer.builder(kafkaSettings.bootstrapServers(), target)
            .job(jobSpec)
            .rate(rate)
            .salting(salt)
            .progress(
                p ->
                    System.out.printf(
                        "%,d sent in %ds (%,.0f/s)%n",
                        p.sent(), p.elapsed().toSeconds(), p.eventsPerSecond()));
    kafkaSettings.clientProperties().forEach(builder::producerConfig);
    System.out.printf(
        "loadgen: %s to topic %s (job %s)%s%n",
        workload, target, jobSpec.name(), salt ? ", salting hot keys" : "");
    try (LoadProducer producer = builder.build()) {
      Runtime.getRuntime().addShutdownHook(new Thread(producer::stop, "skewer-loadgen-stop"));
      LoadSummary s =
          producer.run(live ? Workload.live(spec, Clock.systemUTC()) : Workload.of(spec));
      System.out.printf(
          "done: %,d sent (%,d normal, %,d late-kind, %,d malformed, %,d future) in %.1fs, %,.0f/s, %d failed%n",
          s.sent(),
          s.normal(),
          s.lateKind(),
          s.malformed(),
          s.future(),
          s.elapsed().toMillis() / 1000.0,
          s.eventsPerSecond(),
          s.failed());
      return s.failed() == 0 ? 0 : 1;
    }
  }
}

package dev.skewer.launcher.cli;

import dev.skewer.loadgen.produce.LoadProducer;
import dev.skewer.loadgen.produce.LoadSummary;
import dev.skewer.loadgen.workload.Workload;
import dev.skewer.loadgen.workload.WorkloadSpec;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code skewer loadgen}: sends a reference or live workload to a topic. */
@Command(
    name = "loadgen",
    mixinStandardHelpOptions = true,
    description = "Send a workload (w1, w2, w3, demo) to a Kafka topic at a target rate.")
public final class LoadgenCommand implements Callable<Integer> {

  @Option(
      names = "--bootstrap",
      required = true,
      paramLabel = "HOST:PORT",
      description = "Kafka bootstrap servers.")
  String bootstrap;

  @Option(
      names = "--topic",
      defaultValue = "events",
      description = "Target topic. Default: ${DEFAULT-VALUE}.")
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
    WorkloadSpec spec;
    boolean live = false;
    switch (workload.toLowerCase(java.util.Locale.ROOT)) {
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
          throw new picocli.CommandLine.ParameterException(
              new picocli.CommandLine(this),
              "--workload must be w1, w2, w3 or demo, was '" + workload + "'");
    }
    boolean salt =
        switch (salting.toLowerCase(java.util.Locale.ROOT)) {
          case "on" -> true;
          case "off" -> false;
          default ->
              throw new picocli.CommandLine.ParameterException(
                  new picocli.CommandLine(this),
                  "--salting must be on or off, was '" + salting + "'");
        };
    try (LoadProducer producer =
        LoadProducer.builder(bootstrap, topic)
            .rate(rate)
            .salting(salt)
            .progress(
                p ->
                    System.out.printf(
                        "%,d sent in %ds (%,.0f/s)%n",
                        p.sent(), p.elapsed().toSeconds(), p.eventsPerSecond()))
            .build()) {
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

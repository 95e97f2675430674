package dev.skewer.devtools;

import dev.skewer.launcher.cli.Processes;
import dev.skewer.testkit.kafka.EmbeddedKafka;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code skewer broker}: a single-node KRaft Kafka broker for development. */
@Command(
    name = "broker",
    mixinStandardHelpOptions = true,
    description = "Run a single-node Kafka broker (KRaft) for development and trials.")
public final class BrokerCommand implements Callable<Integer> {

  @Option(
      names = "--port",
      defaultValue = "9092",
      description = "Listener port. Default: ${DEFAULT-VALUE}.")
  int port;

  @Option(
      names = "--data-dir",
      defaultValue = ".skewer/broker",
      description = "Log directory (kept across restarts). Default: ${DEFAULT-VALUE}.")
  Path dataDir;

  @Override
  public Integer call() throws Exception {
    EmbeddedKafka kafka = EmbeddedKafka.start(dataDir.toAbsolutePath(), port);
    System.out.println("Kafka broker (KRaft) at " + kafka.bootstrapServers() + "; Ctrl-C to stop");
    Processes.runUntilShutdown(kafka);
    return 0;
  }
}

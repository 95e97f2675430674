package dev.skewer.benchmarks.deployed;

import dev.skewer.testkit.kafka.KafkaBrokerProcess;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The benches' {@code --broker-jvm-opts}: the JVM flags of the broker they start in its own JVM,
 * Kafka's own by default.
 */
public final class BrokerJvmOptions {

  @Option(
      names = "--broker-jvm-opts",
      description =
          "JVM flags of the broker, space-separated. Default: Kafka's kafka-server-start.sh flags"
              + " (-Xmx1G -Xms1G, G1).")
  String opts;

  /** The broker's flags: those given, else Kafka's defaults. */
  public List<String> list() {
    return opts == null ? KafkaBrokerProcess.KAFKA_DEFAULT_JVM_OPTIONS : JvmFlags.split(opts);
  }
}

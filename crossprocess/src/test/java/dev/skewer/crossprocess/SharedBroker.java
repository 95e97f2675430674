package dev.skewer.crossprocess;

import dev.skewer.testkit.kafka.KafkaBrokerProcess;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/**
 * One broker child process shared by every scenario of the test JVM that does not stop the broker
 * itself: started on first use, killed by a shutdown hook when the test JVM exits. Scenarios keep
 * apart through their own topics and consumer groups (see {@link ClusterUnderTest}).
 */
final class SharedBroker {

  private static KafkaBrokerProcess broker;

  private SharedBroker() {}

  /** The shared broker, started (or restarted, if a test killed it) on demand. */
  static synchronized KafkaBrokerProcess get() {
    if (broker == null) {
      String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("HHmmss-SSS"));
      broker = KafkaBrokerProcess.start(ClusterUnderTest.ROOT.resolve("shared-broker-" + stamp), 0);
      KafkaBrokerProcess b = broker;
      Runtime.getRuntime().addShutdownHook(new Thread(b::close, "shared-broker-reaper"));
    } else if (!broker.isAlive()) {
      broker.restart();
    }
    return broker;
  }
}

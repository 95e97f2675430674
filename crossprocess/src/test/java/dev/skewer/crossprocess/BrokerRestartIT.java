package dev.skewer.crossprocess;

import dev.skewer.loadgen.reference.ExactReference;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The Kafka broker stopped (SIGTERM) mid-stream, kept down for a while, and started again on the
 * same data dir and port. The cluster has a broker of its own, so other scenarios are unaffected.
 */
class BrokerRestartIT extends CrossProcessScenario {

  static final Duration OUTAGE = Duration.ofSeconds(8);

  @Test
  void shouldStayExactWhenTheBrokerRestartsMidStream() throws InterruptedException {
    // given
    cluster =
        ClusterUnderTest.builder("brokerrestart").ownBroker().nodes(3).coordinators(2).start();
    ExactReference reference = reference();

    try (LoadRun load = produce(workload("brokerrestart", 404), reference, 30_000)) {
      // when
      load.awaitSent(EVENTS / 3, Duration.ofMinutes(1));
      cluster.broker().stop();
      Thread.sleep(OUTAGE.toMillis()); // the outage itself, not a wait for anything
      cluster.broker().restart();
      cluster.awaitSettled(Duration.ofSeconds(90));

      // then
      assertExact("brokerrestart", load, reference);
    }
  }
}

package dev.skewer.crossprocess;

import dev.skewer.loadgen.reference.ExactReference;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * SIGKILL to every node and coordinator at the same instant mid-stream (the broker stays up), then
 * all of them started again: nothing survives in Hazelcast, so the cluster must resume from the
 * checkpoints mirrored to Kafka.
 */
class FullRestartIT extends CrossProcessScenario {

  @Test
  void shouldStayExactWhenEveryProcessIsKilledAndRestarted() {
    // given
    cluster = clusterNamed("fullrestart").nodes(3).coordinators(2).start();
    ExactReference reference = reference();

    try (LoadRun load = produce(workload("fullrestart", 505), reference, 30_000)) {
      // when
      load.awaitSent(EVENTS / 3, Duration.ofMinutes(1));
      cluster.killAll();
      cluster.startAll();
      cluster.awaitSettled(Duration.ofSeconds(90));

      // then
      assertExact("fullrestart", load, reference);
    }
  }
}

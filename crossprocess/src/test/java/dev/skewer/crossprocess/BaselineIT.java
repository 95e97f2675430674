package dev.skewer.crossprocess;

import dev.skewer.loadgen.reference.ExactReference;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The failure-free run every failure scenario is measured against: 3 nodes, 2 coordinators. */
class BaselineIT extends CrossProcessScenario {

  /** The baseline ends its input by silence: end of input by idleness, across processes. */
  @Override
  protected boolean endsBySilence() {
    return true;
  }

  @Test
  void shouldMatchTheReferenceWithoutFailures() {
    // given
    cluster = clusterNamed("baseline").nodes(3).coordinators(2).start();
    ExactReference reference = reference();

    // when
    try (LoadRun load = produce(workload("baseline", 101), reference, 30_000)) {
      load.awaitSent(EVENTS, Duration.ofMinutes(2));

      // then
      assertExact("baseline", load, reference);
    }
  }
}

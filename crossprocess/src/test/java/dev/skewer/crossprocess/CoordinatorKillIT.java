package dev.skewer.crossprocess;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.loadgen.reference.ExactReference;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** kill -9 of one of 2 coordinators mid-stream. */
class CoordinatorKillIT extends CrossProcessScenario {

  @Test
  void shouldStayExactWhenACoordinatorIsKilled() {
    // given
    cluster = clusterNamed("coordkill").nodes(3).coordinators(2).start();
    ExactReference reference = reference();
    SkewerProcess victim = cluster.coordinators().get(0);
    assertThat(cluster.partitionsOf(victim)).as("the victim owns partials partitions").isNotEmpty();

    try (LoadRun load = produce(workload("coordkill", 303), reference, 30_000)) {
      // when
      load.awaitSent(EVENTS * 2 / 5, Duration.ofMinutes(1));
      victim.kill();
      cluster.awaitSettled(Duration.ofSeconds(60));

      // then
      assertExact("coordkill", load, reference);
    }
  }
}

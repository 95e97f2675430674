package dev.skewer.crossprocess;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.loadgen.reference.ExactReference;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** kill -9 of one of 3 nodes mid-stream, and of a second one once the first has been replaced. */
class NodeKillIT extends CrossProcessScenario {

  @Test
  void shouldStayExactWhenOneNodeAndThenASecondAreKilled() {
    // given
    cluster = clusterNamed("nodekill").nodes(3).coordinators(2).start();
    ExactReference reference = reference();
    SkewerProcess first = cluster.nodes().get(0);
    SkewerProcess second = cluster.nodes().get(1);
    assertThat(cluster.partitionsOf(first)).as("the first victim owns partitions").isNotEmpty();

    try (LoadRun load = produce(workload("nodekill", 202), reference, 20_000)) {
      // when the first node dies with a fifth of the stream sent
      load.awaitSent(EVENTS / 5, Duration.ofMinutes(1));
      first.kill();
      cluster.awaitSettled(Duration.ofSeconds(60));
      assertThat(cluster.partitionsOf(second)).as("the second victim owns partitions").isNotEmpty();

      // and the second once the first's partitions have a new owner
      long sentAtSecondKill = load.sent();
      second.kill();
      System.err.printf(
          "nodekill: second node killed with %d of %d events sent%n", sentAtSecondKill, EVENTS);
      cluster.awaitSettled(Duration.ofSeconds(60));

      // then
      assertExact("nodekill", load, reference);
    }
  }
}

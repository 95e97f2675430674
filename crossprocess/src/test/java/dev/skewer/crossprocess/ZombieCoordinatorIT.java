package dev.skewer.crossprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skewer.core.job.Guarantee;
import dev.skewer.loadgen.reference.ExactReference;
import dev.skewer.testkit.kafka.TopicReader;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A coordinator frozen with SIGSTOP for longer than the consumer session timeout while the stream
 * goes on: its partials partitions move to the other coordinator, which takes them over — its
 * transactional producers fence the frozen one's and abort its open transactions — and writes
 * results; then the zombie is thawed with SIGCONT and carries on with what it had in hand. With
 * {@code guarantee: exactly_once} nothing it writes after its successor started is visible to a
 * {@code read_committed} reader: the results are exact, each (key, window) has one final result and
 * no (result key, revision) appears twice — not even a byte-identical copy.
 */
class ZombieCoordinatorIT extends CrossProcessScenario {

  @Test
  void shouldKeepAPausedCoordinatorsWritesInvisibleWithExactlyOnce() throws Exception {
    // given
    cluster =
        clusterNamed("zombiecoord")
            .jobYaml(ClusterUnderTest.defaultJobYaml("zombiecoord", Guarantee.EXACTLY_ONCE))
            .nodes(3)
            .coordinators(2)
            .start();
    ExactReference reference = reference();
    SkewerProcess zombie = cluster.coordinators().get(0);
    assertThat(cluster.partitionsOf(zombie)).as("the zombie owns partials partitions").isNotEmpty();

    try (LoadRun load = produce(workload("zombiecoord", 707), reference, 20_000)) {
      // when the coordinator freezes until the group has given its partitions to the other one
      load.awaitSent(EVENTS / 5, Duration.ofMinutes(1));
      zombie.pause();
      cluster.awaitSettledWithout(Set.of(zombie), Duration.ofSeconds(60));

      // and the successor has committed results of its own
      int before = committedResults();
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> committedResults() > before);

      // and the zombie thaws while the stream goes on
      long logAtResume = ZombieLogs.size(zombie);
      zombie.resume();
      System.err.printf(
          "zombiecoord: resumed with %d of %d events sent, %d results committed%n",
          load.sent(), EVENTS, committedResults());
      cluster.awaitSettled(Duration.ofSeconds(60));

      // then the results are exact and nothing is written twice
      assertExact("zombiecoord", load, reference);

      // and the zombie ran again and learned it had been replaced
      assertThat(ZombieLogs.since(zombie, logAtResume))
          .as("the zombie's log after SIGCONT")
          .containsAnyOf("no longer a group member", "fenced");
    }
  }

  private int committedResults() {
    return TopicReader.readAll(
            cluster.bootstrap(), cluster.job().topics().results(), Duration.ofSeconds(20))
        .size();
  }
}

package dev.skewer.crossprocess;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.core.job.Guarantee;
import dev.skewer.loadgen.reference.ExactReference;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A node frozen with SIGSTOP for longer than the consumer session timeout — its partitions move to
 * the others — then thawed with SIGCONT: a zombie that still believes it owns them and may emit
 * stale Partials and checkpoints before it learns otherwise. Its output must be fenced: with {@code
 * at_least_once} by the coordinators (stale epochs) and the checkpoint store; with {@code
 * exactly_once} at the broker too — none of its Partials, watermarks or side outputs written after
 * its successors started is visible, so not even a side output is duplicated. Fenced, it asks the
 * group before taking anything over again, so it never fences its successors in turn.
 */
class ZombieNodeIT extends CrossProcessScenario {

  @Test
  void shouldFenceAPausedNodeThatComesBack() throws IOException {
    run("zombie", Guarantee.AT_LEAST_ONCE, 606);
  }

  @Test
  void shouldFenceAPausedNodeThatComesBackWithExactlyOnce() throws IOException {
    run("zombieeos", Guarantee.EXACTLY_ONCE, 616);
  }

  private void run(String name, Guarantee guarantee, long seed) throws IOException {
    // given
    cluster =
        clusterNamed(name)
            .jobYaml(ClusterUnderTest.defaultJobYaml(name, guarantee))
            .nodes(3)
            .coordinators(2)
            .start();
    ExactReference reference = reference();
    SkewerProcess zombie = cluster.nodes().get(0);
    assertThat(cluster.partitionsOf(zombie)).as("the zombie owns partitions").isNotEmpty();

    try (LoadRun load = produce(workload(name, seed), reference, 20_000)) {
      // when the node freezes until the group has given its partitions away
      load.awaitSent(EVENTS / 5, Duration.ofMinutes(1));
      zombie.pause();
      cluster.awaitSettledWithout(Set.of(zombie), Duration.ofSeconds(60));

      // and thaws while the stream goes on
      long sentAtResume = load.sent();
      Map<SkewerProcess, Long> logsAtResume = new HashMap<>();
      for (SkewerProcess node : cluster.nodes()) {
        logsAtResume.put(node, Files.size(node.logFile()));
      }
      zombie.resume();
      System.err.printf("%s: resumed with %d of %d events sent%n", name, sentAtResume, EVENTS);
      cluster.awaitSettled(Duration.ofSeconds(60));

      // then
      assertExact(name, load, reference);
      // and the zombie never took a partition over on its own say: its successors were never
      // fenced (each retake's new epoch and producer would have fenced the real owner)
      for (SkewerProcess node : cluster.nodes()) {
        if (node != zombie) {
          assertThat(logSince(node, logsAtResume.get(node)))
              .as("%s fenced after the zombie thawed", node.id())
              .doesNotContain("is owned by a newer owner");
        }
      }
    }
  }

  private static String logSince(SkewerProcess process, long offset) throws IOException {
    byte[] all = Files.readAllBytes(process.logFile());
    return new String(all, (int) offset, all.length - (int) offset, StandardCharsets.UTF_8);
  }
}

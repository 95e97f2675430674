package dev.skewer.benchmarks.deployed;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The command lines a bench's cluster starts its processes with (nothing is started here). */
class DeployedClusterTest {

  @Test
  void shouldGiveCoordinatorsTheirOwnJvmFlagsAfterEveryProcesssFlags(@TempDir Path dir) {
    // given the benches' default coordinator flags, as a bench without the option parses them
    DeployedBench bench = new DeployedBench();
    new CommandLine(bench).parseArgs();
    List<String> coordinatorFlags = bench.coordinatorJvm.list();

    // when a cluster of 2 nodes and 1 coordinator is planned
    DeployedCluster cluster =
        DeployedCluster.plan(
            dir.resolve("skewer.jar"),
            List.of("-Xmx1g", "-Xlog:gc:file=gc-{name}.log"),
            coordinatorFlags,
            List.of(),
            List.of(),
            "w1-plan",
            null,
            DeployedCluster.W1_PARTITIONS,
            "127.0.0.1:9092",
            2,
            1,
            dir,
            null,
            "plan-1");

    // then the coordinator runs C1 only, after the flags every process has; the nodes do not
    assertThat(coordinatorFlags).containsExactly("-XX:TieredStopAtLevel=1");
    List<SkewerChild> all = cluster.all();
    assertThat(all).extracting(c -> c.name).containsExactly("node-1", "node-2", "coordinator-1");
    for (SkewerChild node : all.subList(0, 2)) {
      assertThat(node.command()).doesNotContain("-XX:TieredStopAtLevel=1");
      assertThat(node.command()).contains("-Xlog:gc:file=gc-" + node.name + ".log");
    }
    List<String> coordinator = all.get(2).command();
    assertThat(coordinator.subList(1, 4))
        .containsExactly("-Xmx1g", "-Xlog:gc:file=gc-coordinator-1.log", "-XX:TieredStopAtLevel=1");
    assertThat(coordinator.get(4)).isEqualTo("-jar");
    assertThat(coordinator).contains("coordinator");
  }

  @Test
  void shouldLetABenchRunCoordinatorsWithoutFlagsOfTheirOwn() {
    // when the option is given empty
    StartupBench bench = new StartupBench();
    new CommandLine(bench).parseArgs("--coordinator-jvm-opts=");

    // then a coordinator adds nothing, and the header says nothing about it
    assertThat(bench.coordinatorJvm.list()).isEmpty();
    assertThat(bench.coordinatorJvm.describe()).isEmpty();
  }
}

package dev.skewer.benchmarks;

import dev.skewer.benchmarks.deployed.DeployedBench;
import dev.skewer.benchmarks.deployed.FailoverBench;
import dev.skewer.benchmarks.deployed.FloorBench;
import dev.skewer.benchmarks.deployed.ImbalanceBench;
import dev.skewer.benchmarks.deployed.JoinBench;
import dev.skewer.benchmarks.deployed.StartupBench;
import dev.skewer.benchmarks.profile.ProfileSummary;
import dev.skewer.benchmarks.workload.CheckpointBench;
import dev.skewer.benchmarks.workload.EndToEndBench;
import dev.skewer.benchmarks.workload.EngineBench;
import dev.skewer.benchmarks.workload.HotKeyBench;
import dev.skewer.benchmarks.workload.QueryLatencyBench;
import dev.skewer.benchmarks.workload.SlidingBench;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code skewer bench}: the reference workloads, engine-only and end-to-end (a subcommand of the
 * development launcher {@code skewer-dev.jar}, never of the product jar).
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = "Run a reference workload of BENCHMARK.md and print the figures.",
    subcommands = {
      EngineBench.class,
      EndToEndBench.class,
      DeployedBench.class,
      FloorBench.class,
      StartupBench.class,
      FailoverBench.class,
      ImbalanceBench.class,
      JoinBench.class,
      ProfileSummary.class,
      CheckpointBench.class,
      HotKeyBench.class,
      SlidingBench.class,
      QueryLatencyBench.class
    })
public final class BenchCommand implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}

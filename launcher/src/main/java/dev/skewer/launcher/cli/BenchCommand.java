package dev.skewer.launcher.cli;

import dev.skewer.launcher.bench.CheckpointBench;
import dev.skewer.launcher.bench.EndToEndBench;
import dev.skewer.launcher.bench.EngineBench;
import picocli.CommandLine.Command;

/** {@code skewer bench}: the reference workloads, engine-only and end-to-end. */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = "Run a reference workload of BENCHMARK.md and print the figures.",
    subcommands = {
      EngineBench.class,
      EndToEndBench.class,
      CheckpointBench.class,
      dev.skewer.launcher.bench.HotKeyBench.class,
      dev.skewer.launcher.bench.SlidingBench.class,
      dev.skewer.launcher.bench.QueryLatencyBench.class
    })
public final class BenchCommand implements Runnable {

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}

package dev.skewer.devtools;

import dev.skewer.benchmarks.BenchCommand;
import dev.skewer.benchmarks.deployed.AotCacheCommand;
import dev.skewer.launcher.SkewerCli;
import picocli.CommandLine;

/**
 * The {@code skewer} command of the development jar ({@code skewer-dev.jar}, what {@code ./skewer}
 * runs): every command of the product jar plus {@code demo} (an embedded broker and a whole cluster
 * in one JVM), {@code broker} (a development Kafka broker), {@code bench} (the reference workloads)
 * and {@code aot-cache} (the AOT cache the image maps, written by a training run).
 */
public final class SkewerDevCli {

  private SkewerDevCli() {}

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The product command line with the development commands added. */
  public static CommandLine commandLine() {
    return SkewerCli.commandLine(
        new DemoCommand(), new BrokerCommand(), new BenchCommand(), new AotCacheCommand());
  }
}

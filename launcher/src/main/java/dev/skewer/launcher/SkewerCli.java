package dev.skewer.launcher;

import dev.skewer.launcher.cli.BenchCommand;
import dev.skewer.launcher.cli.BrokerCommand;
import dev.skewer.launcher.cli.CoordinatorCommand;
import dev.skewer.launcher.cli.DemoCommand;
import dev.skewer.launcher.cli.LoadgenCommand;
import dev.skewer.launcher.cli.NodeCommand;
import dev.skewer.launcher.cli.ReconcileCommand;
import dev.skewer.launcher.cli.ResultsCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code skewer} command. */
@Command(
    name = "skewer",
    mixinStandardHelpOptions = true,
    version = "skewer 0.1.0",
    description = "Hot-key-aware windowed aggregation over Kafka.",
    subcommands = {
      DemoCommand.class,
      NodeCommand.class,
      CoordinatorCommand.class,
      LoadgenCommand.class,
      BenchCommand.class,
      BrokerCommand.class,
      ReconcileCommand.class,
      ResultsCommand.class
    })
public final class SkewerCli implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(new CommandLine(new SkewerCli()).execute(args));
  }

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}

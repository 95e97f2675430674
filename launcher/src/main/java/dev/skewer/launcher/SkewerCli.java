package dev.skewer.launcher;

import dev.skewer.launcher.cli.CoordinatorCommand;
import dev.skewer.launcher.cli.LoadgenCommand;
import dev.skewer.launcher.cli.NodeCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code skewer} command of the product jar ({@code skewer.jar}): {@code node}, {@code
 * coordinator}, {@code loadgen}. The development jar ({@code skewer-dev.jar}, module devtools) adds
 * {@code demo}, {@code broker} and {@code bench} to {@link #commandLine()}.
 */
@Command(
    name = "skewer",
    mixinStandardHelpOptions = true,
    version = "skewer 0.1.0",
    description = "Hot-key-aware windowed aggregation over Kafka.",
    subcommands = {NodeCommand.class, CoordinatorCommand.class, LoadgenCommand.class})
public final class SkewerCli implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The product command line; add subcommands to it before executing. */
  public static CommandLine commandLine() {
    return new CommandLine(new SkewerCli());
  }

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}

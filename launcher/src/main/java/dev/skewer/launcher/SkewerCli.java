package dev.skewer.launcher;

import dev.skewer.launcher.cli.CliErrors;
import dev.skewer.launcher.cli.CoordinatorCommand;
import dev.skewer.launcher.cli.EnvironmentDefaults;
import dev.skewer.launcher.cli.LoadgenCommand;
import dev.skewer.launcher.cli.NodeCommand;
import dev.skewer.launcher.cli.ReconcileCommand;
import dev.skewer.launcher.cli.ResultsCommand;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code skewer} command of the product jar ({@code skewer.jar}): {@code node}, {@code
 * coordinator}, {@code loadgen}, {@code reconcile}, {@code results}. The development jar ({@code
 * skewer-dev.jar}, module devtools) adds {@code demo}, {@code broker} and {@code bench} to {@link
 * #commandLine()}.
 */
@Command(
    name = "skewer",
    mixinStandardHelpOptions = true,
    version = "skewer 0.1.0",
    description = "Hot-key-aware windowed aggregation over Kafka.",
    subcommands = {
      NodeCommand.class,
      CoordinatorCommand.class,
      LoadgenCommand.class,
      ReconcileCommand.class,
      ResultsCommand.class
    })
public final class SkewerCli implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /**
   * The product command line plus {@code extraSubcommands}, with every flag also read from its
   * {@code SKEWER_*} environment variable ({@link EnvironmentDefaults}) and user errors reported in
   * one line with exit code 2 ({@link CliErrors}).
   */
  public static CommandLine commandLine(Object... extraSubcommands) {
    return commandLine(System.getenv(), extraSubcommands);
  }

  /** As {@link #commandLine(Object...)}, reading flag defaults from {@code env}. */
  public static CommandLine commandLine(Map<String, String> env, Object... extraSubcommands) {
    CommandLine cli = new CommandLine(new SkewerCli());
    for (Object sub : extraSubcommands) {
      cli.addSubcommand(sub);
    }
    EnvironmentDefaults.install(cli, env);
    cli.setExecutionExceptionHandler(new CliErrors());
    return cli;
  }

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}

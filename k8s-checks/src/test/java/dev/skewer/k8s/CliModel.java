package dev.skewer.k8s;

import dev.skewer.launcher.SkewerCli;
import dev.skewer.launcher.cli.CommonOptions;
import dev.skewer.launcher.cli.EnvironmentDefaults;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * What the {@code skewer} binary reads, taken from the product command line itself ({@link
 * SkewerCli#commandLine(Map, Object...)}) rather than a list kept by hand: per subcommand, its
 * option names, the {@code SKEWER_*} variable of each option ({@link EnvironmentDefaults#variable},
 * the mapping the binary applies), and the process variables its options default to ({@link
 * CommonOptions#POD_IP}, {@link CommonOptions#HOSTNAME} for the long-running roles).
 *
 * @param subcommands subcommand name → what it reads
 */
record CliModel(Map<String, Command> subcommands) {

  /**
   * One subcommand's inputs.
   *
   * @param options every option name ({@code --job}, {@code -X}, ...)
   * @param variables {@code SKEWER_*} variable → the long option name it stands for
   * @param processVariables other variables an option defaults to
   */
  record Command(
      String name,
      Set<String> options,
      Map<String, String> variables,
      Set<String> processVariables) {

    /** Every variable the subcommand reads. */
    Set<String> environment() {
      Set<String> all = new LinkedHashSet<>(variables.keySet());
      all.addAll(processVariables);
      return all;
    }
  }

  /** The model of the product command line. */
  static CliModel ofSkewer() {
    CommandLine cli = SkewerCli.commandLine(Map.of());
    Map<String, Command> commands = new TreeMap<>();
    for (Map.Entry<String, CommandLine> e : cli.getSubcommands().entrySet()) {
      commands.put(e.getKey(), command(e.getKey(), e.getValue().getCommandSpec()));
    }
    return new CliModel(commands);
  }

  private static Command command(String name, CommandSpec spec) {
    Set<String> options = new LinkedHashSet<>();
    Map<String, String> variables = new LinkedHashMap<>();
    for (OptionSpec o : spec.options()) {
      options.addAll(List.of(o.names()));
      String variable = EnvironmentDefaults.variable(o);
      if (variable != null) {
        variables.put(variable, o.longestName());
      }
    }
    Set<String> process = new LinkedHashSet<>();
    boolean longRunning =
        spec.mixins().values().stream().anyMatch(m -> m.userObject() instanceof CommonOptions);
    if (longRunning) {
      process.add(CommonOptions.POD_IP);
      process.add(CommonOptions.HOSTNAME);
    }
    return new Command(name, options, variables, process);
  }

  /** The subcommand, or AssertionError naming the ones that exist. */
  Command command(String name) {
    Command c = subcommands.get(name);
    if (c == null) {
      throw new AssertionError(
          "skewer has no subcommand '" + name + "' (has " + subcommands.keySet() + ")");
    }
    return c;
  }

  /**
   * What the binary makes of {@code args} with {@code env}: the subcommand's option values by long
   * name, parsed by the product command line (so {@code SKEWER_*} defaults applied).
   *
   * @throws CommandLine.ParameterException as the binary would report it
   */
  static Map<String, Object> parse(List<String> args, Map<String, String> env) {
    ParseResult result = SkewerCli.commandLine(env).parseArgs(args.toArray(String[]::new));
    ParseResult sub = result.subcommand();
    if (sub == null) {
      throw new AssertionError("no subcommand in " + args);
    }
    Map<String, Object> values = new TreeMap<>();
    for (OptionSpec o : sub.commandSpec().options()) {
      if (!o.usageHelp() && !o.versionHelp()) {
        values.put(o.longestName(), o.getValue());
      }
    }
    return values;
  }

  /**
   * {@code args} with each {@code SKEWER_*} variable of {@code env} that {@code command} maps to an
   * option written as that option instead ({@code --name=value}).
   */
  static List<String> asFlags(Command command, List<String> args, Map<String, String> env) {
    List<String> out = new ArrayList<>(args);
    env.forEach(
        (name, value) -> {
          String option = command.variables().get(name);
          if (option != null && !value.isEmpty()) {
            out.add(option + "=" + value);
          }
        });
    return out;
  }
}

package dev.skewer.k8s;

import dev.skewer.launcher.SkewerCli;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * What the {@code skewer} binary reads, taken from its own picocli model rather than a list kept by
 * hand: per subcommand, the option names and the environment variables the options declare — the
 * variables named in an option's default value ({@code ${env:SKEWER_JOB}}, {@code
 * ${SKEWER_JOB:-x}}) or description ({@code $POD_IP}), read with variable interpolation off.
 *
 * @param subcommands subcommand name → what it reads
 */
record CliModel(Map<String, Command> subcommands) {

  /** One subcommand's inputs. */
  record Command(String name, Set<String> options, Set<String> environment) {}

  /** {@code ${env:NAME}}, {@code ${NAME}}, {@code ${NAME:-default}}, {@code $NAME}. */
  private static final Pattern ENV_REFERENCE =
      Pattern.compile("\\$\\{(?:env:)?([A-Z][A-Z0-9_]*)(?::-[^}]*)?}|\\$([A-Z][A-Z0-9_]*)");

  /** The model of {@link SkewerCli}. */
  static CliModel ofSkewer() {
    CommandLine cli = new CommandLine(new SkewerCli());
    cli.setInterpolateVariables(false);
    Map<String, Command> commands = new TreeMap<>();
    for (Map.Entry<String, CommandLine> e : cli.getSubcommands().entrySet()) {
      commands.put(e.getKey(), command(e.getKey(), e.getValue().getCommandSpec()));
    }
    return new CliModel(commands);
  }

  private static Command command(String name, CommandSpec spec) {
    Set<String> options = new LinkedHashSet<>();
    Set<String> environment = new LinkedHashSet<>();
    for (OptionSpec o : spec.options()) {
      options.addAll(List.of(o.names()));
      environment.addAll(envReferences(o.defaultValue()));
      for (String line : o.description()) {
        environment.addAll(envReferences(line));
      }
    }
    return new Command(name, options, environment);
  }

  /** The environment variable names referenced in {@code text}. */
  static Set<String> envReferences(String text) {
    Set<String> names = new LinkedHashSet<>();
    if (text == null) {
      return names;
    }
    Matcher m = ENV_REFERENCE.matcher(text);
    while (m.find()) {
      names.add(m.group(1) != null ? m.group(1) : m.group(2));
    }
    return names;
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
}

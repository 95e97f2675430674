package dev.skewer.launcher.cli;

import dev.skewer.core.job.JobSpecLoader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Every flag's value can also come from an environment variable: {@code --bind-address} from {@code
 * SKEWER_BIND_ADDRESS}, i.e. {@code SKEWER_} plus the long name upper-cased with {@code -} turned
 * into {@code _} ({@code --hz-member} is plural: {@code SKEWER_HZ_MEMBERS}, comma-separated). A
 * flag on the command line wins over its variable; an empty variable counts as unset.
 *
 * <p>Never a variable: {@code --help}, {@code --version}, {@code -X} (Kafka properties go in the
 * {@code --kafka-config} file, {@code SKEWER_KAFKA_CONFIG}), and any name that would fall into the
 * job file's override namespace ({@link JobSpecLoader#isJobOverride}: {@code SKEWER_NAME}, {@code
 * SKEWER_TOPICS_…}, ...).
 */
public final class EnvironmentDefaults implements IDefaultValueProvider {

  /** The prefix of every variable. */
  public static final String PREFIX = "SKEWER_";

  private static final String SECTION_KEY = "environment";
  private static final Map<String, String> RENAMED = Map.of("--hz-member", "SKEWER_HZ_MEMBERS");
  private static final Set<String> NONE = Set.of("--help", "--version", "--kafka-property");

  private final Map<String, String> env;

  public EnvironmentDefaults(Map<String, String> env) {
    this.env = Map.copyOf(env);
  }

  /** The variable of {@code option}, or null when it has none. */
  public static String variable(OptionSpec option) {
    String longest = option.longestName();
    if (!longest.startsWith("--") || NONE.contains(longest)) {
      return null;
    }
    String renamed = RENAMED.get(longest);
    String name =
        renamed != null
            ? renamed
            : PREFIX + longest.substring(2).replace('-', '_').toUpperCase(Locale.ROOT);
    return JobSpecLoader.isJobOverride(name) ? null : name;
  }

  /** The environment this provider reads. */
  public Map<String, String> env() {
    return env;
  }

  /**
   * The environment of the command line {@code spec} belongs to: the one its {@link
   * EnvironmentDefaults} reads (so flags, job overrides, {@code $HOSTNAME} and {@code $POD_IP} come
   * from one place), else the process's.
   */
  public static Map<String, String> of(CommandSpec spec) {
    CommandSpec root = spec.root();
    return root.defaultValueProvider() instanceof EnvironmentDefaults d ? d.env : System.getenv();
  }

  @Override
  public String defaultValue(ArgSpec argSpec) {
    if (!(argSpec instanceof OptionSpec option)) {
      return null;
    }
    String name = variable(option);
    if (name == null) {
      return null;
    }
    String value = env.get(name);
    return value == null || value.isEmpty() ? null : value;
  }

  /**
   * Reads defaults from {@code env} in {@code root} and every subcommand, and adds an "Environment"
   * section to their usage help.
   */
  public static void install(CommandLine root, Map<String, String> env) {
    root.setDefaultValueProvider(new EnvironmentDefaults(env));
    addHelpSection(root);
  }

  private static void addHelpSection(CommandLine cl) {
    List<String> keys = new ArrayList<>(cl.getHelpSectionKeys());
    if (!keys.contains(SECTION_KEY)) {
      int at = keys.indexOf(CommandLine.Model.UsageMessageSpec.SECTION_KEY_FOOTER_HEADING);
      keys.add(at < 0 ? keys.size() : at, SECTION_KEY);
      cl.setHelpSectionKeys(keys);
      Map<String, CommandLine.IHelpSectionRenderer> sections =
          new LinkedHashMap<>(cl.getHelpSectionMap()); // a copy: set it back
      sections.put(SECTION_KEY, help -> section(help.commandSpec()));
      cl.setHelpSectionMap(sections);
    }
    for (CommandLine sub : cl.getSubcommands().values()) {
      addHelpSection(sub);
    }
  }

  private static String section(CommandSpec spec) {
    StringBuilder sb = new StringBuilder();
    for (OptionSpec o : spec.options()) {
      String name = variable(o);
      if (name != null) {
        sb.append(String.format("  %-30s %s%n", name, o.longestName()));
      }
    }
    return sb.length() == 0
        ? ""
        : String.format("%nEnvironment (a flag on the command line wins over its variable):%n")
            + sb;
  }
}

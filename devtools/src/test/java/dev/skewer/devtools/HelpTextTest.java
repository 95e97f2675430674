package dev.skewer.devtools;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.AnnotatedElement;
import java.util.ArrayList;
import java.util.IllegalFormatException;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Every line of every command's help, product and development commands alike, is a valid format
 * string: picocli passes each line as written (after its {@code ${...}} variables) through {@link
 * String#format}, and a line that is not one (a lone {@code %}) prints "[picocli WARN] Could not
 * format ..." above the help. A literal percent sign is written {@code %%}.
 */
class HelpTextTest {

  @Test
  void everyHelpLineIsAValidFormatString() {
    List<String> problems = new ArrayList<>();
    List<String> commands = new ArrayList<>();
    int[] lines = {0};
    visit(SkewerDevCli.commandLine(), problems, commands, lines);
    assertThat(commands)
        .as("the walk reaches the product's and the development jar's commands")
        .contains("skewer node", "skewer coordinator", "skewer aot-cache", "skewer bench deployed");
    assertThat(lines[0]).as("help lines checked").isGreaterThan(200);
    assertThat(problems).isEmpty();
  }

  @Test
  void aLonePercentSignIsCaught() {
    List<String> problems = new ArrayList<>();
    check("example", new String[] {"took 8 % off, median 17 %; see docs"}, problems);
    check("example", new String[] {"took 8 %% off, median 17 %%; see docs"}, problems);
    assertThat(problems).hasSize(1).first().asString().startsWith("example: ");
  }

  private static void visit(
      CommandLine cl, List<String> problems, List<String> commands, int[] lines) {
    CommandSpec spec = cl.getCommandSpec();
    String name = spec.qualifiedName();
    commands.add(name);
    Command command = spec.userObject().getClass().getAnnotation(Command.class);
    if (command != null) {
      lines[0] += check(name + " header", command.header(), problems);
      lines[0] += check(name + " description", command.description(), problems);
      lines[0] += check(name + " footer", command.footer(), problems);
    }
    for (ArgSpec arg : spec.args()) {
      if (arg.userObject() instanceof AnnotatedElement element) {
        String where =
            name + " " + (arg instanceof OptionSpec o ? o.longestName() : arg.paramLabel());
        Option option = element.getAnnotation(Option.class);
        if (option != null) {
          lines[0] += check(where, option.description(), problems);
        }
        Parameters parameters = element.getAnnotation(Parameters.class);
        if (parameters != null) {
          lines[0] += check(where, parameters.description(), problems);
        }
      }
    }
    for (CommandLine sub : cl.getSubcommands().values()) {
      if (sub.getCommandSpec().parent() == spec
          && !commands.contains(sub.getCommandSpec().qualifiedName())) {
        visit(sub, problems, commands, lines);
      }
    }
  }

  private static int check(String where, String[] lines, List<String> problems) {
    for (String line : lines) {
      try {
        String.format(line);
      } catch (IllegalFormatException e) {
        problems.add(where + ": " + e + " in '" + line + "'");
      }
    }
    return lines.length;
  }
}

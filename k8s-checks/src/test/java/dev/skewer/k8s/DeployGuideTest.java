package dev.skewer.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.core.job.JobNames;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The deployment guide ({@code docs/deploy.md}) works as written, as far as it can without a
 * cluster: every {@code helm install}/{@code helm upgrade} in it renders with its own flags (the
 * upgrades with {@code --reuse-values} on top of the guide's {@code values-prod.yaml}), every
 * object a {@code kubectl} command names exists in those renders with the port it uses, the {@code
 * skewer} command run in a pod parses with that pod's environment, and the names it lists for the
 * default job are the ones the binary derives ({@link JobNames}).
 */
class DeployGuideTest {

  static String guide;
  static Path valuesProd;

  @BeforeAll
  static void read(@TempDir Path dir) throws IOException {
    guide = Files.readString(Repo.root().resolve("docs/deploy.md"), StandardCharsets.UTF_8);
    String prod =
        blocks("yaml").stream()
            .filter(b -> b.startsWith("# values-prod.yaml"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no values-prod.yaml block in docs/deploy.md"));
    valuesProd = dir.resolve("values-prod.yaml");
    Files.writeString(valuesProd, prod, StandardCharsets.UTF_8);
  }

  /** The guide's {@code helm install|upgrade <release> k8s/skewer ...} commands. */
  static List<List<String>> helmCommands() {
    return commands("helm").stream()
        .filter(c -> c.size() > 3 && c.get(3).equals("k8s/skewer"))
        .toList();
  }

  @Test
  void shouldRenderEveryHelmCommandOfTheGuide() {
    List<List<String>> helm = helmCommands();
    assertThat(helm).as("helm commands in the guide").hasSizeGreaterThanOrEqualTo(4);
    for (List<String> command : helm) {
      RenderedChart chart = render(command);
      assertThat(chart.objects()).as("%s", command).isNotEmpty();
    }
  }

  @Test
  void shouldNameObjectsAndPortsTheRenderedReleaseHas() {
    RenderedChart installed = render(helmCommands().get(0));
    RenderedChart withReconcile =
        render(
            helmCommands().stream()
                .filter(c -> c.contains("reconcile.enabled=true"))
                .findFirst()
                .orElseThrow());
    List<List<String>> kubectl = commands("kubectl");
    assertThat(kubectl).as("kubectl commands in the guide").isNotEmpty();
    int checked = 0;
    for (List<String> command : kubectl) {
      int pf = command.indexOf("port-forward");
      if (pf >= 0 && command.size() > pf + 2) { // not a mention in prose
        String target = command.get(pf + 1);
        int port = Integer.parseInt(command.get(pf + 2).split(":")[1]);
        if (target.startsWith("svc/")) {
          Service svc = installed.get(Service.class, target.substring(4));
          assertThat(svc.getSpec().getPorts()).anyMatch(p -> p.getPort() == port);
        } else {
          Container c = podContainer(installed, target.substring("pod/".length()));
          assertThat(c.getPorts()).anyMatch(p -> p.getContainerPort() == port);
        }
        checked++;
      }
      int exec = command.indexOf("exec");
      if (exec >= 0 && command.get(exec + 1).startsWith("ads-")) {
        // kubectl exec <pod> -- java [options] -jar <jar> <skewer args>
        Container c = podContainer(installed, command.get(exec + 1));
        List<String> java = command.subList(command.indexOf("--") + 1, command.size());
        int jar = java.indexOf("-jar");
        assertThat(java.get(jar + 1)).isEqualTo(LocalPod.IMAGE_JAR);
        List<String> args = java.subList(jar + 2, java.size());
        assertThat(CliModel.parse(args, ChartInvariantsTest.podEnv(c)))
            .as("skewer %s in %s", args, command.get(exec + 1))
            .isNotEmpty();
        checked++;
      }
      for (String arg : command) {
        if (arg.startsWith("--from=cronjob/")) {
          assertThat(withReconcile.find(CronJob.class, arg.substring("--from=cronjob/".length())))
              .as(arg)
              .isPresent();
          checked++;
        }
      }
    }
    assertThat(checked).as("kubectl commands checked").isGreaterThanOrEqualTo(4);
  }

  @Test
  void shouldListTheNamesTheBinaryDerives() {
    JobNames example = JobNames.of("ad_clicks");
    JobNames placeholder = JobNames.of("JOB");
    for (String derived :
        List.of(
            example.partialsTopic(),
            example.checkpointsTopic(),
            example.hotKeysTopic(),
            example.nodesGroup(),
            example.coordinatorsGroup(),
            example.hazelcastClusterName(),
            placeholder.partialsTopic().replace("JOB", "<job>"),
            placeholder.checkpointsTopic().replace("JOB", "<job>"),
            placeholder.hotKeysTopic().replace("JOB", "<job>"),
            placeholder.nodesGroup().replace("JOB", "<job>"),
            placeholder.coordinatorsGroup().replace("JOB", "<job>"))) {
      assertThat(guide).as("docs/deploy.md names %s", derived).contains("`" + derived);
    }
    assertThat(RenderedChart.defaults().config().getData().get("job.yaml"))
        .as("the guide's example is the chart's default job")
        .contains("name: ad_clicks");
  }

  // --- the guide's commands -----------------------------------------------------------------

  /** {@code helm install|upgrade} rendered as the command says. */
  private static RenderedChart render(List<String> command) {
    assertThat(command.get(1)).isIn("install", "upgrade");
    String release = command.get(2);
    assertThat(command.get(3)).isEqualTo("k8s/skewer");
    String namespace = "default";
    Path values = null;
    Map<String, Object> sets = new LinkedHashMap<>();
    for (int i = 4; i < command.size(); i++) {
      switch (command.get(i)) {
        case "-n" -> namespace = command.get(++i);
        case "-f" -> {
          assertThat(command.get(++i)).isEqualTo("values-prod.yaml");
          values = valuesProd;
        }
        case "--set" -> {
          String pair = command.get(++i);
          sets.put(pair.substring(0, pair.indexOf('=')), pair.substring(pair.indexOf('=') + 1));
        }
        case "--reuse-values" -> values = valuesProd;
        default -> throw new AssertionError("unexpected '" + command.get(i) + "' in " + command);
      }
    }
    String yaml = RenderedChart.template(release, namespace, values, sets);
    return new RenderedChart(String.join(" ", command), yaml, StrictManifests.parseAll(yaml));
  }

  private static Container podContainer(RenderedChart chart, String pod) {
    String set = pod.substring(0, pod.lastIndexOf('-'));
    int ordinal = Integer.parseInt(pod.substring(pod.lastIndexOf('-') + 1));
    StatefulSet s = chart.get(StatefulSet.class, set);
    assertThat(s.getSpec().getReplicas()).as("%s exists", pod).isGreaterThan(ordinal);
    return s.getSpec().getTemplate().getSpec().getContainers().get(0);
  }

  /** The fenced code blocks of the guide in {@code language}. */
  static List<String> blocks(String language) {
    List<String> blocks = new ArrayList<>();
    Matcher m = Pattern.compile("(?s)```" + language + "\n(.*?)```").matcher(guide);
    while (m.find()) {
      blocks.add(m.group(1));
    }
    return blocks;
  }

  /**
   * The commands starting with {@code program}, as shell words: lines of the guide's bash blocks,
   * then inline code spans.
   */
  static List<List<String>> commands(String program) {
    List<List<String>> commands = new ArrayList<>();
    for (String block : blocks("bash")) {
      for (String line : block.replace("\\\n", " ").split("\n")) {
        List<String> words = words(line.replaceAll("\\s+#.*$", ""));
        if (!words.isEmpty() && words.get(0).equals(program)) {
          commands.add(words);
        }
      }
    }
    String prose = guide.replaceAll("(?s)```.*?```", "");
    Matcher inline = Pattern.compile("`(" + Pattern.quote(program) + " [^`]+)`").matcher(prose);
    while (inline.find()) {
      commands.add(words(inline.group(1)));
    }
    return commands;
  }

  /** Shell words: blanks separate, single and double quotes group. */
  static List<String> words(String line) {
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    boolean inWord = false;
    char quote = 0;
    for (char ch : line.toCharArray()) {
      if (quote != 0) {
        if (ch == quote) {
          quote = 0;
        } else {
          word.append(ch);
        }
      } else if (ch == '\'' || ch == '"') {
        quote = ch;
        inWord = true;
      } else if (Character.isWhitespace(ch)) {
        if (inWord) {
          words.add(word.toString());
          word.setLength(0);
          inWord = false;
        }
      } else {
        word.append(ch);
        inWord = true;
      }
    }
    if (inWord) {
      words.add(word.toString());
    }
    return words;
  }
}

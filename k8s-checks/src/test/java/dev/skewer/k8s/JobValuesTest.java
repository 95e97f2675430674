package dev.skewer.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecException;
import dev.skewer.core.job.JobSpecLoader;
import java.io.IOException;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The chart's {@code job} values mirror the job file: the schema declares exactly the fields the
 * project's job loader knows (section by section), and the default values are {@code
 * examples/ad-clicks.yaml}.
 */
class JobValuesTest {

  static final Pattern KNOWN = Pattern.compile("unknown field \\(known: ([^)]*)\\)");

  @Test
  void shouldDeclareExactlyTheLoadersFields() throws IOException {
    JsonNode job =
        new ObjectMapper()
            .readTree(Repo.chart().resolve("values.schema.json").toFile())
            .at("/properties/job");
    String base = RenderedChart.defaults().config().getData().get("job.yaml");

    // top level
    assertThat(declared(job)).as("job fields").isEqualTo(known(base, ""));
    // each section
    for (String section : sections(job)) {
      assertThat(declared(job.at("/properties/" + section)))
          .as("job.%s fields", section)
          .isEqualTo(known(base, section));
    }
  }

  @Test
  void shouldDefaultToTheAdClicksExample() {
    JobSpec example = JobSpecLoader.load(Repo.root().resolve("examples/ad-clicks.yaml"), Map.of());
    JobSpec chart =
        JobSpecLoader.parse(RenderedChart.defaults().config().getData().get("job.yaml"), Map.of());
    assertThat(chart).isEqualTo(example);
  }

  @Test
  void shouldCarryAnotherJobThroughTheValues() {
    JobSpec job =
        JobSpecLoader.parse(
            RenderedChart.valueSet("sessions").config().getData().get("job.yaml"), Map.of());
    assertThat(job.name()).isEqualTo("session_summary");
    assertThat(job.window().getClass().getSimpleName()).isEqualTo("SessionWindow");
    assertThat(job.topics().eventsPartitions()).isEqualTo(6);
    assertThat(job.input().dimensions()).hasSize(1);
  }

  /** The loader's known fields of {@code section} ("" = top level), from its own error message. */
  static Set<String> known(String baseYaml, String section) {
    String probe =
        section.isEmpty()
            ? baseYaml + "\nzzUnknown: 1\n"
            : baseYaml.replaceFirst("(?m)^" + section + ":\\s*$", section + ":\n  zzUnknown: 1");
    Throwable t = catchThrowable(() -> JobSpecLoader.parse(probe, Map.of()));
    assertThat(t)
        .as("the loader refuses an unknown field in '%s'", section)
        .isInstanceOf(JobSpecException.class);
    Matcher m = KNOWN.matcher(t.getMessage());
    assertThat(m.find()).as("message lists the known fields: %s", t.getMessage()).isTrue();
    return Arrays.stream(m.group(1).split(",\\s*")).collect(Collectors.toCollection(TreeSet::new));
  }

  private static Set<String> declared(JsonNode schema) {
    Set<String> names = new TreeSet<>();
    schema.path("properties").fieldNames().forEachRemaining(names::add);
    return names;
  }

  /** The job fields that are sections (objects in the schema). */
  private static Set<String> sections(JsonNode job) {
    Set<String> sections = new TreeSet<>();
    Iterator<Map.Entry<String, JsonNode>> it = job.path("properties").fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      if (e.getValue().has("properties")) {
        sections.add(e.getKey());
      }
    }
    return sections;
  }
}

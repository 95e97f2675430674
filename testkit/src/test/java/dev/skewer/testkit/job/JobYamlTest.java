package dev.skewer.testkit.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skewer.core.job.Guarantee;
import dev.skewer.core.job.HoppingWindow;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecException;
import dev.skewer.core.job.JobSpecLoader;
import dev.skewer.core.job.NumericField;
import dev.skewer.core.job.OutputSpec;
import dev.skewer.core.job.SessionWindow;
import dev.skewer.core.job.TopicsSpec;
import dev.skewer.core.job.TumblingWindow;
import dev.skewer.core.job.WatermarkSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JobYamlTest {

  @Test
  void shouldLoadTheDefaultsAsTheCommonIntegrationTestJob() {
    JobSpec job = JobYaml.named("e2e").spec();

    assertThat(job.name()).isEqualTo("e2e");
    assertThat(job.input().keyPointer()).isEqualTo("/key");
    assertThat(job.input().timePointer()).isEqualTo("/ts");
    assertThat(job.input().numericFields()).containsExactly(new NumericField("value", "/value"));
    assertThat(job.input().distinctPointer()).isEqualTo("/user");
    assertThat(job.input().quantilePointer()).isEqualTo("/value");
    assertThat(job.window()).isEqualTo(new TumblingWindow(Duration.ofSeconds(10)));
    assertThat(job.watermark())
        .isEqualTo(
            new WatermarkSpec(
                Duration.ofSeconds(2),
                Duration.ofSeconds(5),
                WatermarkSpec.DEFAULT_MAX_FUTURE_SKEW,
                Duration.ofSeconds(6)));
    assertThat(job.allowedLateness()).isEqualTo(Duration.ofSeconds(5));
    assertThat(job.topics()).isEqualTo(topics("e2e", 4, 2));
    assertThat(job.output()).isEqualTo(OutputSpec.defaults());
    assertThat(job.topK()).isEqualTo(JobSpec.DEFAULT_TOP_K);
    assertThat(job.guarantee()).isEqualTo(JobSpec.DEFAULT_GUARANTEE);
  }

  @Test
  void shouldWriteTumblingWindows() {
    JobSpec job = JobYaml.named("t").tumbling(Duration.ofMillis(2_500)).spec();

    assertThat(job.window()).isEqualTo(new TumblingWindow(Duration.ofMillis(2_500)));
  }

  @Test
  void shouldWriteHoppingWindows() {
    JobSpec job = JobYaml.named("h").hopping(Duration.ofSeconds(10), Duration.ofSeconds(2)).spec();

    assertThat(job.window())
        .isEqualTo(new HoppingWindow(Duration.ofSeconds(10), Duration.ofSeconds(2)));
  }

  @Test
  void shouldWriteSessionWindows() {
    JobSpec job = JobYaml.named("s").session(Duration.ofMillis(1_500)).spec();

    assertThat(job.window()).isEqualTo(new SessionWindow(Duration.ofMillis(1_500)));
  }

  @Test
  void shouldWriteEveryFieldATestStates() {
    JobSpec job =
        JobYaml.named("topkfailover")
            .topicPrefix("tkf")
            .keyPointer("/k")
            .timePointer("/time")
            .numericField("bytes", "/size")
            .distinctPointer("/session")
            .quantilePointer("/size")
            .delay(Duration.ofMillis(500))
            .idle(Duration.ofSeconds(3))
            .finalizeAfterIdle(Duration.ofSeconds(4))
            .allowedLateness(Duration.ZERO)
            .quantiles(0.5, 0.999)
            .eventsPartitions(3)
            .partialsPartitions(1)
            .topK(3)
            .guarantee(Guarantee.EXACTLY_ONCE)
            .spec();

    assertThat(job.name()).isEqualTo("topkfailover");
    assertThat(job.input().keyPointer()).isEqualTo("/k");
    assertThat(job.input().timePointer()).isEqualTo("/time");
    assertThat(job.input().numericFields())
        .containsExactly(new NumericField("value", "/value"), new NumericField("bytes", "/size"));
    assertThat(job.input().distinctPointer()).isEqualTo("/session");
    assertThat(job.input().quantilePointer()).isEqualTo("/size");
    assertThat(job.watermark().delay()).isEqualTo(Duration.ofMillis(500));
    assertThat(job.watermark().idle()).isEqualTo(Duration.ofSeconds(3));
    assertThat(job.watermark().finalizeAfterIdle()).isEqualTo(Duration.ofSeconds(4));
    assertThat(job.allowedLateness()).isZero();
    assertThat(job.output().quantiles()).containsExactly(0.5, 0.999);
    assertThat(job.topics()).isEqualTo(topics("tkf", 3, 1));
    assertThat(job.topK()).isEqualTo(3);
    assertThat(job.guarantee()).isEqualTo(Guarantee.EXACTLY_ONCE);
  }

  @Test
  void shouldLeaveOutWhatATestTurnsOff() {
    JobSpec job =
        JobYaml.named("prov")
            .countsOnly()
            .defaultPartialsTopic()
            .neverFinalize()
            .quantiles()
            .spec();

    assertThat(job.input().numericFields()).isEmpty();
    assertThat(job.input().distinctPointer()).isNull();
    assertThat(job.input().quantilePointer()).isNull();
    assertThat(job.toSketchSpec().numericFields()).isZero();
    assertThat(job.topics().partials()).isEqualTo("skewer.prov.partials");
    assertThat(job.watermark().finalizeAfterIdle()).isNull();
    assertThat(job.output().quantiles()).isEmpty();
  }

  @Test
  void shouldApplyEnvironmentOverridesAsTheLoaderDoes() {
    JobSpec job =
        JobYaml.named("env")
            .parse(Map.of("SKEWER_GUARANTEE", "exactly_once", "SKEWER_WATERMARK_DELAY", "3s"));

    assertThat(job.guarantee()).isEqualTo(Guarantee.EXACTLY_ONCE);
    assertThat(job.watermark().delay()).isEqualTo(Duration.ofSeconds(3));
  }

  @Test
  void shouldLoadTheSameJobFromItsYamlText() {
    JobYaml yaml = JobYaml.named("same").session(Duration.ofSeconds(2)).topK(7);

    assertThat(JobSpecLoader.parse(yaml.yaml(), Map.of())).isEqualTo(yaml.spec());
    assertThat(yaml.yaml()).contains("name: same\n", "  type: session\n  gap: 2s\n", "topK: 7\n");
  }

  @Test
  void shouldQuoteNamesYamlWouldReadAsSomethingElse() {
    for (String name : List.of("null", "yes", "off", "007", "a b", "say \"hi\"")) {
      JobSpec job = JobYaml.named(name).topicPrefix("t").spec();
      assertThat(job.name()).isEqualTo(name);
    }
  }

  @Test
  void shouldLeaveInvalidJobsToTheLoadersMessage() {
    JobYaml job = JobYaml.named("p").eventsPartitions(0);

    assertThatThrownBy(job::spec)
        .isInstanceOf(JobSpecException.class)
        .hasMessageContaining("eventsPartitions");
  }

  @Test
  void shouldRefuseAnInvalidWindowAsTheJobRecordsDo() {
    assertThatThrownBy(
            () -> JobYaml.named("bad").hopping(Duration.ofSeconds(2), Duration.ofSeconds(10)))
        .isInstanceOf(JobSpecException.class)
        .hasMessageContaining("hop");
  }

  @Test
  void shouldRefuseABlankNameOrAMissingDuration() {
    assertThatThrownBy(() -> JobYaml.named(" ")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> JobYaml.named("x").delay(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("delay");
  }

  /** Topics {@code <prefix>.events}, {@code <prefix>.partials}, … with these partitions. */
  private static TopicsSpec topics(String prefix, int events, int partials) {
    return new TopicsSpec(
        prefix + ".events",
        events,
        prefix + ".partials",
        partials,
        prefix + ".results",
        prefix + ".late",
        prefix + ".dlq",
        TopicsSpec.DEFAULT_REPLICATION_FACTOR);
  }
}

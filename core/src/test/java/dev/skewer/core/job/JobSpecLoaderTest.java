package dev.skewer.core.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skewer.sketches.SketchSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class JobSpecLoaderTest {

  static final String MINIMAL =
      "name: clicks\n"
          + "input:\n"
          + "  keyPointer: /key\n"
          + "  timePointer: /ts\n"
          + "window:\n"
          + "  size: 10s\n";

  static final String FULL =
      "name: full\n"
          + "input:\n"
          + "  keyPointer: /ad/id\n"
          + "  timePointer: /meta/ts\n"
          + "  timeFormat: iso-8601\n"
          + "  numericFields:\n"
          + "    - name: latency\n"
          + "      pointer: /latency_ms\n"
          + "    - /cost/eur\n"
          + "    - {pointer: /bytes}\n"
          + "  distinctPointer: /user/id\n"
          + "  quantilePointer: /latency_ms\n"
          + "  frequencyPointer: /country\n"
          + "  maxRecordBytes: 1024\n"
          + "  saltSeparator: '~'\n"
          + "  dimensions:\n"
          + "    - {name: channel, pointer: /channel}\n"
          + "window:\n"
          + "  type: tumbling\n"
          + "  size: PT1M\n"
          + "watermark:\n"
          + "  delay: 500ms\n"
          + "  idle: 1m\n"
          + "  maxFutureSkew: 2h\n"
          + "  finalizeAfterIdle: 3s\n"
          + "allowedLateness: 30s\n"
          + "sketches:\n"
          + "  hllPrecision: 12\n"
          + "  hllSparsePrecision: 20\n"
          + "  cmsEpsilon: 0.01\n"
          + "  cmsDelta: 0.05\n"
          + "  heavyHitterCapacity: 32\n"
          + "  tdigestCompression: 200\n"
          + "output:\n"
          + "  keyField: ad\n"
          + "  quantiles: [0.5, 0.999]\n"
          + "  heavyHitters: 5\n"
          + "  format: json\n"
          + "topics:\n"
          + "  events: ev\n"
          + "  eventsPartitions: 8\n"
          + "  partials: pa\n"
          + "  partialsPartitions: 3\n"
          + "  results: re\n"
          + "  late: la\n"
          + "  dlq: dl\n"
          + "  replicationFactor: 3\n"
          + "topK: 7\n"
          + "guarantee: exactly_once\n";

  @Test
  void shouldApplyDefaultsWhenOnlyRequiredFieldsAreGiven() {
    JobSpec job = JobSpecLoader.parse(MINIMAL, Map.of());

    assertThat(job.name()).isEqualTo("clicks");
    assertThat(job.input().timeFormat()).isEqualTo(TimeFormat.AUTO);
    assertThat(job.input().numericFields()).isEmpty();
    assertThat(job.input().maxRecordBytes()).isEqualTo(65_536);
    assertThat(job.input().saltSeparator()).isEqualTo("#");
    assertThat(job.input().dimensions()).isEmpty();
    assertThat(job.window()).isEqualTo(new TumblingWindow(Duration.ofSeconds(10)));
    assertThat(job.watermark()).isEqualTo(WatermarkSpec.defaults());
    assertThat(job.watermark().delay()).isEqualTo(Duration.ofSeconds(2));
    assertThat(job.watermark().idle()).isEqualTo(Duration.ofSeconds(5));
    assertThat(job.watermark().maxFutureSkew()).isEqualTo(Duration.ofHours(1));
    assertThat(job.watermark().finalizeAfterIdle()).isNull();
    assertThat(job.allowedLateness()).isEqualTo(Duration.ZERO);
    assertThat(job.sketches()).isEqualTo(SketchesSpec.defaults());
    assertThat(job.output()).isEqualTo(new OutputSpec("key", List.of(0.5, 0.99), 10, "json"));
    assertThat(job.topics())
        .isEqualTo(
            new TopicsSpec(
                "events",
                4,
                "skewer.clicks.partials",
                2,
                "skewer.results",
                "skewer.late",
                "skewer.dlq",
                (short) 1));
    assertThat(job.topK()).isEqualTo(100);
    assertThat(job.guarantee()).isEqualTo(Guarantee.AT_LEAST_ONCE);
  }

  @Test
  void shouldReadEveryFieldWhenAllAreGiven() {
    JobSpec job = JobSpecLoader.parse(FULL, Map.of());

    InputSpec in = job.input();
    assertThat(in.keyPointer()).isEqualTo("/ad/id");
    assertThat(in.timePointer()).isEqualTo("/meta/ts");
    assertThat(in.timeFormat()).isEqualTo(TimeFormat.ISO_8601);
    assertThat(in.numericFields())
        .containsExactly(
            new NumericField("latency", "/latency_ms"),
            new NumericField("cost_eur", "/cost/eur"),
            new NumericField("bytes", "/bytes"));
    assertThat(in.distinctName()).isEqualTo("user_id");
    assertThat(in.quantileName()).isEqualTo("latency_ms");
    assertThat(in.frequencyName()).isEqualTo("country");
    assertThat(in.maxRecordBytes()).isEqualTo(1024);
    assertThat(in.saltSeparator()).isEqualTo("~");
    assertThat(in.dimensions()).containsExactly(new Dimension("channel", "/channel"));
    assertThat(job.window()).isEqualTo(new TumblingWindow(Duration.ofMinutes(1)));
    assertThat(job.watermark())
        .isEqualTo(
            new WatermarkSpec(
                Duration.ofMillis(500),
                Duration.ofMinutes(1),
                Duration.ofHours(2),
                Duration.ofSeconds(3)));
    assertThat(job.allowedLateness()).isEqualTo(Duration.ofSeconds(30));
    assertThat(job.sketches()).isEqualTo(new SketchesSpec(12, 20, 0.01, 0.05, 32, 200));
    assertThat(job.output()).isEqualTo(new OutputSpec("ad", List.of(0.5, 0.999), 5, "json"));
    assertThat(job.topics())
        .isEqualTo(new TopicsSpec("ev", 8, "pa", 3, "re", "la", "dl", (short) 3));
    assertThat(job.topK()).isEqualTo(7);
    assertThat(job.guarantee()).isEqualTo(Guarantee.EXACTLY_ONCE);
  }

  @Test
  void shouldReadTheGuaranteeFromTheFileOrItsOverrideInAnyCase() {
    assertThat(JobSpecLoader.parse(MINIMAL + "guarantee: AT_LEAST_ONCE\n", Map.of()).guarantee())
        .isEqualTo(Guarantee.AT_LEAST_ONCE);
    assertThat(JobSpecLoader.parse(MINIMAL, Map.of("SKEWER_GUARANTEE", "exactly-once")).guarantee())
        .isEqualTo(Guarantee.EXACTLY_ONCE);
    assertThat(
            JobSpecLoader.parse(
                    MINIMAL + "guarantee: exactly_once\n", Map.of("SKEWER_GUARANTEE", "null"))
                .guarantee())
        .isEqualTo(JobSpec.DEFAULT_GUARANTEE);
    assertThat(JobSpecLoader.envName("guarantee")).isEqualTo("GUARANTEE");
    // a job built in code keeps its guarantee when its topics change
    JobSpec exactly = JobSpecLoader.parse(FULL, Map.of());
    assertThat(exactly.withTopics(TopicsSpec.defaults("other")).guarantee())
        .isEqualTo(Guarantee.EXACTLY_ONCE);
    assertThat(exactly.withTopics(TopicsSpec.defaults("other")).topics())
        .isEqualTo(TopicsSpec.defaults("other"));
  }

  @Test
  void shouldBuildTheSketchSpecFromTheConfiguredPointers() {
    SketchSpec full = JobSpecLoader.parse(FULL, Map.of()).toSketchSpec();
    assertThat(full).isEqualTo(new SketchSpec(3, true, 12, 20, true, 0.01, 0.05, 32, true, 200));

    SketchSpec minimal = JobSpecLoader.parse(MINIMAL, Map.of()).toSketchSpec();
    assertThat(minimal.numericFields()).isZero();
    assertThat(minimal.distinct()).isFalse();
    assertThat(minimal.frequencies()).isFalse();
    assertThat(minimal.quantiles()).isFalse();
    assertThat(minimal.hllPrecision()).isEqualTo(SketchSpec.DEFAULT_HLL_PRECISION);
  }

  @Test
  void shouldParseHoppingAndSessionWindowsAsSupported() {
    JobSpec hopping =
        JobSpecLoader.parse(
            MINIMAL,
            Map.of(
                "SKEWER_WINDOW_TYPE",
                "hopping",
                "SKEWER_WINDOW_SIZE",
                "1m",
                "SKEWER_WINDOW_HOP",
                "10s"));
    assertThat(hopping.window())
        .isEqualTo(new HoppingWindow(Duration.ofMinutes(1), Duration.ofSeconds(10)));
    assertThat(hopping.window().supportedByRuntime()).isTrue();

    JobSpec session =
        JobSpecLoader.parse(
            "name: s\ninput: {keyPointer: /k, timePointer: /t}\nwindow: {type: session, gap: 10m}\n",
            Map.of());
    assertThat(session.window()).isEqualTo(new SessionWindow(Duration.ofMinutes(10)));
    assertThat(session.window().supportedByRuntime()).isTrue();
    assertThat(new TumblingWindow(Duration.ofSeconds(1)).supportedByRuntime()).isTrue();
  }

  @Test
  void shouldApplyEnvironmentOverridesOverTheFile() {
    Map<String, String> env =
        Map.ofEntries(
            Map.entry("SKEWER_NAME", "renamed"),
            Map.entry("SKEWER_WATERMARK_DELAY", "5s"),
            Map.entry("SKEWER_WINDOW_SIZE", "1m"),
            Map.entry("SKEWER_TOPICS_EVENTS_PARTITIONS", "8"),
            Map.entry("SKEWER_TOPICS_EVENTS", "raw"),
            Map.entry("SKEWER_ALLOWED_LATENESS", "30s"),
            Map.entry("SKEWER_TOP_K", "12"),
            Map.entry("SKEWER_INPUT_TIME_FORMAT", "epoch_ms"),
            Map.entry("SKEWER_INPUT_NUMERIC_FIELDS", "[{name: v, pointer: /v}, /w]"),
            Map.entry("SKEWER_INPUT_DISTINCT_POINTER", "/user"),
            Map.entry("SKEWER_OUTPUT_QUANTILES", "0.25, 0.75"),
            Map.entry("SKEWER_SKETCHES_CMS_EPSILON", "0.002"),
            Map.entry("SKEWER_TOPICS_REPLICATION_FACTOR", "3"),
            Map.entry("SKEWER_WATERMARK_FINALIZE_AFTER_IDLE", "PT3S"),
            Map.entry("SKEWER_KAFKA_BOOTSTRAP_SERVERS", "ignored:9092"),
            Map.entry("PATH", "/usr/bin"));

    JobSpec job = JobSpecLoader.parse(MINIMAL, env);

    assertThat(job.name()).isEqualTo("renamed");
    assertThat(job.watermark().delay()).isEqualTo(Duration.ofSeconds(5));
    assertThat(job.watermark().finalizeAfterIdle()).isEqualTo(Duration.ofSeconds(3));
    assertThat(job.window()).isEqualTo(new TumblingWindow(Duration.ofMinutes(1)));
    assertThat(job.topics().eventsPartitions()).isEqualTo(8);
    assertThat(job.topics().events()).isEqualTo("raw");
    assertThat(job.topics().replicationFactor()).isEqualTo((short) 3);
    assertThat(job.allowedLateness()).isEqualTo(Duration.ofSeconds(30));
    assertThat(job.topK()).isEqualTo(12);
    assertThat(job.input().timeFormat()).isEqualTo(TimeFormat.EPOCH_MS);
    assertThat(job.input().numericFields())
        .containsExactly(new NumericField("v", "/v"), new NumericField("w", "/w"));
    assertThat(job.input().distinctPointer()).isEqualTo("/user");
    assertThat(job.output().quantiles()).containsExactly(0.25, 0.75);
    assertThat(job.sketches().cmsEpsilon()).isEqualTo(0.002);
  }

  @Test
  void shouldUnsetAFieldWhenTheOverrideIsEmptyOrNull() {
    JobSpec job =
        JobSpecLoader.parse(
            FULL,
            Map.of(
                "SKEWER_WATERMARK_FINALIZE_AFTER_IDLE",
                "",
                "SKEWER_INPUT_FREQUENCY_POINTER",
                "null"));
    assertThat(job.watermark().finalizeAfterIdle()).isNull();
    assertThat(job.input().frequencyPointer()).isNull();
  }

  @Test
  void shouldMapFieldPathsToVariableNames() {
    assertThat(JobSpecLoader.envName("eventsPartitions")).isEqualTo("EVENTS_PARTITIONS");
    assertThat(JobSpecLoader.envName("topK")).isEqualTo("TOP_K");
    assertThat(JobSpecLoader.envPath("SKEWER_TOPICS_EVENTS_PARTITIONS"))
        .containsExactly("topics", "eventsPartitions");
    assertThat(JobSpecLoader.envPath("SKEWER_TOPICS_EVENTS")).containsExactly("topics", "events");
    assertThat(JobSpecLoader.envPath("SKEWER_NODE_ID")).isNull();
    assertThat(JobSpecLoader.envPath("OTHER_WINDOW_SIZE")).isNull();
  }

  @Test
  void shouldRejectAnOverrideThatNamesNoFieldOfAJobSection() {
    assertThatThrownBy(() -> JobSpecLoader.parse(MINIMAL, Map.of("SKEWER_WINDOW_SIZ", "1m")))
        .isInstanceOf(JobSpecException.class)
        .hasMessageContaining("SKEWER_WINDOW_SIZ: names no job field");
  }

  @Test
  void shouldParseDurationsInShortAndIsoForm() {
    assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(Durations.parse("10s")).isEqualTo(Duration.ofSeconds(10));
    assertThat(Durations.parse("2m")).isEqualTo(Duration.ofMinutes(2));
    assertThat(Durations.parse("1h")).isEqualTo(Duration.ofHours(1));
    assertThat(Durations.parse("1d")).isEqualTo(Duration.ofDays(1));
    assertThat(Durations.parse("PT10S")).isEqualTo(Duration.ofSeconds(10));
    assertThat(Durations.parse(" -5s ")).isEqualTo(Duration.ofSeconds(-5));
    assertThat(Durations.format(Duration.ofSeconds(-5))).isEqualTo("-5s");
    assertThat(Durations.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
    assertThat(Durations.format(Duration.ofMinutes(2))).isEqualTo("2m");
    assertThat(Durations.format(Duration.ZERO)).isEqualTo("0s");
    assertThat(Durations.format(Duration.ofNanos(5))).isEqualTo("PT0.000000005S");
    assertThatThrownBy(() -> Durations.parse("10 parsecs")).hasMessageContaining("was 10 parsecs");
    assertThatThrownBy(() -> Durations.parse("PTxS")).hasMessageContaining("was PTxS");
  }

  @Test
  void shouldAcceptABareZeroAsADuration() {
    JobSpec job = JobSpecLoader.parse(MINIMAL + "allowedLateness: 0\n", Map.of());
    assertThat(job.allowedLateness()).isZero();
  }

  static Stream<String> examples() throws Exception {
    try (Stream<Path> files = Files.list(Path.of("..", "examples"))) {
      return files
          .filter(p -> p.toString().endsWith(".yaml"))
          .map(Path::toString)
          .sorted()
          .toList()
          .stream();
    }
  }

  @ParameterizedTest
  @MethodSource("examples")
  void shouldParseEveryShippedExample(String file) {
    JobSpec job = JobSpecLoader.load(Path.of(file), Map.of());
    assertThat(job.window().supportedByRuntime()).isTrue();
    assertThat(job.toSketchSpec()).isNotNull();
  }

  @Test
  void shouldShipTheDocumentedExamples() throws Exception {
    assertThat(examples())
        .map(s -> Path.of(s).getFileName().toString())
        .contains("ad-clicks.yaml", "w1.yaml", "demo.yaml", "rolling-2min.yaml", "sessions.yaml");
    JobSpec sessions = JobSpecLoader.load(Path.of("..", "examples", "sessions.yaml"), Map.of());
    assertThat(sessions.name()).isEqualTo("session");
    assertThat(sessions.window()).isEqualTo(new SessionWindow(Duration.ofMinutes(10)));
    assertThat(sessions.allowedLateness()).isEqualTo(Duration.ofMinutes(2));
    assertThat(sessions.input().dimensions())
        .extracting(Dimension::name)
        .containsExactly("game_code", "channel");
    JobSpec w1 = JobSpecLoader.load(Path.of("..", "examples", "w1.yaml"), Map.of());
    assertThat(w1.window()).isEqualTo(new TumblingWindow(Duration.ofSeconds(10)));
    assertThat(w1.watermark().delay()).isEqualTo(Duration.ofSeconds(2));
    assertThat(w1.watermark().finalizeAfterIdle()).isEqualTo(Duration.ofSeconds(1));
    assertThat(w1.toSketchSpec())
        .isEqualTo(SketchSpec.countsOnly(1).withDistinct(14, 25).withQuantiles(100));
    JobSpec rolling = JobSpecLoader.load(Path.of("..", "examples", "rolling-2min.yaml"), Map.of());
    assertThat(rolling.name()).isEqualTo("session_summary");
    assertThat(rolling.output().keyField()).isEqualTo("user_id");
    assertThat(rolling.window()).isEqualTo(new TumblingWindow(Duration.ofMinutes(2)));
  }

  @Test
  void shouldReportAMissingFileAsAJobSpecException() {
    assertThatThrownBy(() -> JobSpecLoader.load(Path.of("no-such-job.yaml"), Map.of()))
        .isInstanceOf(JobSpecException.class)
        .hasMessageContaining("job file no-such-job.yaml does not exist");
  }
}

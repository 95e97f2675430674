package dev.skewer.core.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every validation rule, each with the message it must produce (field path and bad value). */
class JobSpecValidationTest {

  private static final String BASE = JobSpecLoaderTest.MINIMAL;

  static Stream<Arguments> badOverrides() {
    return Stream.of(
        // name
        Arguments.of(
            "SKEWER_NAME",
            "n".repeat(257),
            "name: must be non-blank and at most 256 chars, was 'nnn"),
        // window
        Arguments.of("SKEWER_WINDOW_SIZE", "-5s", "window.size: must be > 0, was -5s"),
        Arguments.of("SKEWER_WINDOW_SIZE", "0s", "window.size: must be > 0, was 0s"),
        Arguments.of(
            "SKEWER_WINDOW_SIZE",
            "PT0.0005S",
            "window.size: must be whole milliseconds, was PT0.0005S"),
        Arguments.of("SKEWER_WINDOW_SIZE", "36501d", "window.size: must be <= 36500d, was 36501d"),
        Arguments.of(
            "SKEWER_WINDOW_SIZE",
            "ten",
            "window.size: expected a duration like 500ms, 10s, 2m, 1h or PT10S, was ten"),
        Arguments.of(
            "SKEWER_WINDOW_TYPE",
            "sliding",
            "window.type: must be one of tumbling, hopping, session, was 'sliding'"),
        Arguments.of("SKEWER_WINDOW_HOP", "1s", "window.hop: not a field of tumbling windows"),
        // watermark
        Arguments.of("SKEWER_WATERMARK_DELAY", "-1s", "watermark.delay: must be >= 0, was -1s"),
        Arguments.of("SKEWER_WATERMARK_IDLE", "0s", "watermark.idle: must be > 0, was 0s"),
        Arguments.of(
            "SKEWER_WATERMARK_MAX_FUTURE_SKEW",
            "-1h",
            "watermark.maxFutureSkew: must be > 0, was -1h"),
        Arguments.of(
            "SKEWER_WATERMARK_FINALIZE_AFTER_IDLE",
            "0ms",
            "watermark.finalizeAfterIdle: must be > 0, was 0s"),
        // lateness, topK
        Arguments.of("SKEWER_ALLOWED_LATENESS", "-30s", "allowedLateness: must be >= 0, was -30s"),
        Arguments.of("SKEWER_TOP_K", "0", "topK: must be in [1, 1000000], was 0"),
        Arguments.of("SKEWER_TOP_K", "many", "topK: must be an integer, was 'many'"),
        // guarantee
        Arguments.of(
            "SKEWER_GUARANTEE",
            "exactly_once_v2",
            "guarantee: must be one of at_least_once, exactly_once, was 'exactly_once_v2'"),
        Arguments.of(
            "SKEWER_GUARANTEE", "[exactly_once]", "guarantee: must be a string, was a array"),
        // input
        Arguments.of(
            "SKEWER_INPUT_KEY_POINTER",
            "key",
            "input.keyPointer: must be a JSON pointer starting with '/', like /user/id, was 'key'"),
        Arguments.of("SKEWER_INPUT_KEY_POINTER", "null", "input.keyPointer: is required"),
        Arguments.of(
            "SKEWER_INPUT_TIME_POINTER",
            "/a~2b",
            "input.timePointer: '~' must be followed by 0 or 1 in a JSON pointer, was '/a~2b'"),
        Arguments.of(
            "SKEWER_INPUT_TIME_FORMAT",
            "unix",
            "input.timeFormat: must be one of EPOCH_MS, ISO_8601, AUTO, was 'unix'"),
        Arguments.of(
            "SKEWER_INPUT_DISTINCT_POINTER",
            "user",
            "input.distinctPointer: must be a JSON pointer"),
        Arguments.of(
            "SKEWER_INPUT_QUANTILE_POINTER", "v", "input.quantilePointer: must be a JSON pointer"),
        Arguments.of(
            "SKEWER_INPUT_FREQUENCY_POINTER",
            "c",
            "input.frequencyPointer: must be a JSON pointer"),
        Arguments.of(
            "SKEWER_INPUT_MAX_RECORD_BYTES",
            "0",
            "input.maxRecordBytes: must be in [1, 16777216], was 0"),
        Arguments.of(
            "SKEWER_INPUT_SALT_SEPARATOR",
            "1",
            "input.saltSeparator: must be non-empty and contain no digit, was '1'"),
        Arguments.of(
            "SKEWER_INPUT_NUMERIC_FIELDS",
            "[{name: 9v, pointer: /v}]",
            "input.numericFields[0].name: must be letters, digits and '_'"),
        Arguments.of(
            "SKEWER_INPUT_NUMERIC_FIELDS",
            "[{name: v, pointer: v}]",
            "input.numericFields[0].pointer: must be a JSON pointer"),
        Arguments.of(
            "SKEWER_INPUT_NUMERIC_FIELDS",
            "[{name: v, pointer: /v, unit: ms}]",
            "input.numericFields[0].unit: unknown field"),
        Arguments.of(
            "SKEWER_INPUT_NUMERIC_FIELDS",
            "[/v, /v]",
            "input.numericFields[1].name: duplicate name 'v'"),
        Arguments.of(
            "SKEWER_INPUT_NUMERIC_FIELDS",
            "[[1]]",
            "input.numericFields[0]: must be a pointer string or a mapping {name, pointer}, was a array"),
        Arguments.of(
            "SKEWER_INPUT_DIMENSIONS",
            "[{name: v, pointer: /v}, {name: v, pointer: /w}]",
            "input.dimensions[1].name: duplicate name 'v'"),
        Arguments.of(
            "SKEWER_INPUT_DIMENSIONS",
            "[/sum_x]",
            "input.dimensions[0].name: clashes with a result field name"),
        Arguments.of(
            "SKEWER_INPUT_DIMENSIONS",
            "[/revision]",
            "input.dimensions[0].name: clashes with a result field name"),
        Arguments.of(
            "SKEWER_INPUT_DIMENSIONS",
            "[/p99]",
            "input.dimensions[0].name: clashes with a result field name"),
        Arguments.of(
            "SKEWER_INPUT_DIMENSIONS",
            "{name: v}",
            "input.dimensions: must be a list, was a object"),
        // sketches
        Arguments.of(
            "SKEWER_SKETCHES_HLL_PRECISION",
            "3",
            "sketches.hllPrecision: must be in [4, 18], was 3"),
        Arguments.of(
            "SKEWER_SKETCHES_HLL_PRECISION",
            "19",
            "sketches.hllPrecision: must be in [4, 18], was 19"),
        Arguments.of(
            "SKEWER_SKETCHES_HLL_SPARSE_PRECISION",
            "26",
            "sketches.hllSparsePrecision: must be in [hllPrecision (14), 25], was 26"),
        Arguments.of(
            "SKEWER_SKETCHES_HLL_SPARSE_PRECISION",
            "13",
            "sketches.hllSparsePrecision: must be in [hllPrecision (14), 25], was 13"),
        Arguments.of(
            "SKEWER_SKETCHES_CMS_EPSILON",
            "1",
            "sketches.cmsEpsilon: must be in [1.0E-5, 1), was 1.0"),
        Arguments.of(
            "SKEWER_SKETCHES_CMS_EPSILON",
            "NaN",
            "sketches.cmsEpsilon: must be in [1.0E-5, 1), was NaN"),
        Arguments.of(
            "SKEWER_SKETCHES_CMS_DELTA", "0", "sketches.cmsDelta: must be in [1.0E-9, 1), was 0.0"),
        Arguments.of(
            "SKEWER_SKETCHES_CMS_DELTA", "x", "sketches.cmsDelta: must be a number, was 'x'"),
        Arguments.of(
            "SKEWER_SKETCHES_HEAVY_HITTER_CAPACITY",
            "0",
            "sketches.heavyHitterCapacity: must be in [1, 10000], was 0"),
        Arguments.of(
            "SKEWER_SKETCHES_TDIGEST_COMPRESSION",
            "5",
            "sketches.tdigestCompression: must be in [10.0, 1000.0], was 5.0"),
        Arguments.of(
            "SKEWER_SKETCHES_TDIGEST_COMPRESSION",
            "1001",
            "sketches.tdigestCompression: must be in [10.0, 1000.0], was 1001.0"),
        // output
        Arguments.of("SKEWER_OUTPUT_KEY_FIELD", "value", "output.keyField: must not be one of"),
        Arguments.of(
            "SKEWER_OUTPUT_KEY_FIELD",
            "user-id",
            "output.keyField: must be letters, digits and '_'"),
        Arguments.of(
            "SKEWER_OUTPUT_QUANTILES",
            "0.5,1.5",
            "output.quantiles[1]: must be in [0, 1], was 1.5"),
        Arguments.of(
            "SKEWER_OUTPUT_QUANTILES", "0.5,0.50", "output.quantiles[1]: duplicate quantile 0.5"),
        Arguments.of(
            "SKEWER_OUTPUT_QUANTILES", "half", "output.quantiles[0]: must be a number, was 'half'"),
        Arguments.of(
            "SKEWER_OUTPUT_HEAVY_HITTERS",
            "-1",
            "output.heavyHitters: must be in [0, 10000], was -1"),
        Arguments.of(
            "SKEWER_OUTPUT_FORMAT", "avro", "output.format: only 'json' is supported, was 'avro'"),
        // topics
        Arguments.of(
            "SKEWER_TOPICS_EVENTS",
            "my topic",
            "topics.events: must be a legal Kafka topic name ([a-zA-Z0-9._-], 1 to 249 chars), was 'my topic'"),
        Arguments.of(
            "SKEWER_TOPICS_PARTIALS", "..", "topics.partials: must be a legal Kafka topic name"),
        Arguments.of(
            "SKEWER_TOPICS_RESULTS", "a/b", "topics.results: must be a legal Kafka topic name"),
        Arguments.of(
            "SKEWER_TOPICS_LATE",
            "events",
            "topics.late: must differ from events, both are 'events'"),
        Arguments.of(
            "SKEWER_TOPICS_DLQ",
            "skewer.results",
            "topics.dlq: must differ from results, both are 'skewer.results'"),
        Arguments.of(
            "SKEWER_TOPICS_EVENTS_PARTITIONS",
            "0",
            "topics.eventsPartitions: must be in [1, 10000], was 0"),
        Arguments.of(
            "SKEWER_TOPICS_PARTIALS_PARTITIONS",
            "10001",
            "topics.partialsPartitions: must be in [1, 10000], was 10001"),
        Arguments.of(
            "SKEWER_TOPICS_REPLICATION_FACTOR",
            "0",
            "topics.replicationFactor: must be in [1, 32], was 0"),
        Arguments.of(
            "SKEWER_TOPICS_REPLICATION_FACTOR",
            "70000",
            "topics.replicationFactor: must be in [1, 32], was 70000"));
  }

  @ParameterizedTest(name = "{0}={1}")
  @MethodSource("badOverrides")
  void shouldNameTheFieldAndValueWhenAValueIsInvalid(
      String variable, String value, String message) {
    assertThatThrownBy(() -> JobSpecLoader.parse(BASE, Map.of(variable, value)))
        .isInstanceOf(JobSpecException.class)
        .hasMessageStartingWith(message);
  }

  static Stream<Arguments> badFiles() {
    return Stream.of(
        Arguments.of("", "name: is required"),
        Arguments.of("- a\n- b\n", "a job file must be a YAML mapping, was ARRAY"),
        Arguments.of("name: [unclosed\n", "not valid YAML"),
        Arguments.of("name: a\nname: b\n", "not valid YAML: Duplicate field 'name'"),
        Arguments.of(BASE + "colour: red\n", "colour: unknown field (known: name, input, window"),
        Arguments.of(BASE + "watermark: {delay: 1s, dely: 2s}\n", "watermark.dely: unknown field"),
        Arguments.of(BASE + "watermark: 2s\n", "watermark: must be a mapping, was '2s'"),
        Arguments.of(
            BASE + "allowedLateness: 30\n",
            "allowedLateness: expected a duration like 500ms, 10s, 2m, 1h or PT10S, was 30"),
        Arguments.of("name: x\nwindow: {size: 1s}\n", "input: is required"),
        Arguments.of("name: x\ninput: {keyPointer: /k, timePointer: /t}\n", "window: is required"),
        Arguments.of(
            "name: x\ninput: {keyPointer: /k}\nwindow: {size: 1s}\n",
            "input.timePointer: is required"),
        Arguments.of(
            "name: x\ninput: {keyPointer: /k, timePointer: /t}\nwindow: {type: hopping, size: 10s, hop: 1m}\n",
            "window.hop: must be <= size (10s), was 1m"),
        Arguments.of(
            "name: x\ninput: {keyPointer: /k, timePointer: /t}\nwindow: {type: hopping, size: 10s}\n",
            "window.hop: is required"),
        Arguments.of(
            "name: x\ninput: {keyPointer: /k, timePointer: /t}\nwindow: {type: session, gap: -1m}\n",
            "window.gap: must be > 0, was -1m"),
        Arguments.of(
            "name: x\ninput: {keyPointer: /k, timePointer: /t}\nwindow: {type: session, size: 1m}\n",
            "window.size: not a field of session windows"),
        Arguments.of(
            "name: x\ninput: {keyPointer: /k, timePointer: /t, numericFields: [{name: a, pointer: /a}],"
                + " dimensions: [{name: a, pointer: /b}]}\nwindow: {size: 1s}\n",
            "input.dimensions[0].name: duplicate name 'a' (names are shared with numericFields)"),
        Arguments.of(
            "name: {a: 1}\ninput: {keyPointer: /k, timePointer: /t}\nwindow: {size: 1s}\n",
            "name: must be a string, was a object"),
        Arguments.of(
            BASE
                + "input: {keyPointer: /k, timePointer: /t, frequencyPointer: /f}\n"
                    .replace(
                        "input",
                        "sketches: {heavyHitterCapacity: 4}\noutput: {heavyHitters: 5}\ninputX"),
            "inputX: unknown field"),
        Arguments.of(
            "name: x\ninput: {keyPointer: /k, timePointer: /t, frequencyPointer: /f}\n"
                + "window: {size: 1s}\nsketches: {heavyHitterCapacity: 4}\noutput: {heavyHitters: 5}\n",
            "output.heavyHitters: must be <= sketches.heavyHitterCapacity (4), was 5"));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("badFiles")
  void shouldNameTheFieldWhenTheFileIsInvalid(String yaml, String message) {
    assertThatThrownBy(() -> JobSpecLoader.parse(yaml, Map.of()))
        .isInstanceOf(JobSpecException.class)
        .hasMessageStartingWith(message);
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("badRecords")
  void shouldValidateRecordsBuiltInCode(Runnable construct, String message) {
    assertThatThrownBy(construct::run)
        .isInstanceOf(JobSpecException.class)
        .hasMessageStartingWith(message);
  }

  static Stream<Arguments> badRecords() {
    return Stream.of(
        Arguments.of((Runnable) () -> new TumblingWindow(null), "size: is required"),
        Arguments.of(
            (Runnable) () -> new TumblingWindow(Duration.ofSeconds(-5)),
            "size: must be > 0, was -5s"),
        Arguments.of((Runnable) () -> new NumericField("ok", null), "pointer: is required"),
        Arguments.of((Runnable) () -> new Dimension(null, "/a"), "name: is required"),
        Arguments.of(
            (Runnable) () -> new JobSpec(null, null, null, null, null, null, null, null, 1),
            "name: is required"));
  }

  @Test
  void shouldExposeThePathAndProblemSeparately() {
    JobSpecException e = new JobSpecException("size", "must be > 0, was -5s").under("window");
    assertThat(e.path()).isEqualTo("window.size");
    assertThat(e.problem()).isEqualTo("must be > 0, was -5s");
    assertThat(e).hasMessage("window.size: must be > 0, was -5s");
    assertThat(new JobSpecException("[0].name", "x").under("input.numericFields").path())
        .isEqualTo("input.numericFields[0].name");
  }
}

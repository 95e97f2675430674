package dev.skewer.core.event;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class EventDecoderTest {

  static final String JOB =
      "name: t\n"
          + "input:\n"
          + "  keyPointer: /key\n"
          + "  timePointer: /ts\n"
          + "  numericFields: [{name: value, pointer: /value}, {name: cost, pointer: /m/cost}]\n"
          + "  distinctPointer: /user/id\n"
          + "  quantilePointer: /value\n"
          + "  frequencyPointer: /country\n"
          + "  maxRecordBytes: 200\n"
          + "  dimensions: [{name: channel, pointer: /ctx/channel}]\n"
          + "window: {size: 10s}\n";

  private final EventDecoder decoder = new EventDecoder(job(Map.of()));
  private final DecodedEvent event = DecodedEvent.forJob(job(Map.of()));

  static JobSpec job(Map<String, String> env) {
    return JobSpecLoader.parse(JOB, env);
  }

  private DlqReason decode(String json) {
    return decoder.decode(json.getBytes(StandardCharsets.UTF_8), event);
  }

  @Test
  void shouldDecodeEveryMappedFieldWhenTheEventIsComplete() {
    DlqReason r =
        decode(
            "{\"key\":\"ad42#3\",\"ts\":1700000000000,\"value\":12.5,"
                + "\"m\":{\"other\":[1,{\"x\":2}],\"cost\":-3},\"user\":{\"id\":\"u1\"},\"country\":\"ie\","
                + "\"ctx\":{\"channel\":\"web\"},\"ignored\":{\"deep\":[true,null]}}");

    assertThat(r).isNull();
    assertThat(event.key()).as("keys are the user's: never rewritten").isEqualTo("ad42#3");
    assertThat(event.eventTimeMs()).isEqualTo(1_700_000_000_000L);
    assertThat(event.numeric()).containsExactly(12.5, -3.0);
    assertThat(event.quantileValue()).isEqualTo(12.5);
    assertThat(event.distinctItem()).isEqualTo("u1");
    assertThat(event.frequencyItem()).isEqualTo("ie");
    assertThat(event.dimensions()).containsExactly("web");
  }

  @Test
  void shouldLeaveAbsentFieldsNaNOrNullWhenOnlyKeyAndTimeArePresent() {
    assertThat(decode("{\"ts\":5,\"key\":7,\"value\":null,\"user\":\"not-an-object\"}")).isNull();
    assertThat(event.key()).isEqualTo("7");
    assertThat(event.numeric()).containsOnly(Double.NaN);
    assertThat(event.quantileValue()).isNaN();
    assertThat(event.distinctItem()).isNull();
    assertThat(event.frequencyItem()).isNull();
    assertThat(event.dimensions()).containsOnlyNulls();
  }

  @Test
  void shouldResetTheHolderBetweenRecords() {
    assertThat(decode("{\"key\":\"a\",\"ts\":1,\"value\":1,\"country\":\"ie\"}")).isNull();
    assertThat(decode("{\"key\":\"b\",\"ts\":2}")).isNull();
    assertThat(event.key()).isEqualTo("b");
    assertThat(event.numeric()[0]).isNaN();
    assertThat(event.frequencyItem()).isNull();
  }

  @Test
  void shouldTakeScalarItemsAsTextAndIgnoreStructuredOnes() {
    assertThat(
            decode(
                "{\"key\":\"a\",\"ts\":1,\"user\":{\"id\":123},\"country\":true,"
                    + "\"ctx\":{\"channel\":[1]}}"))
        .isNull();
    assertThat(event.distinctItem()).isEqualTo("123");
    assertThat(event.frequencyItem()).isEqualTo("true");
    assertThat(event.dimensions()).containsOnlyNulls();
  }

  @Test
  void shouldRejectARecordLargerThanTheBoundBeforeParsingIt() {
    byte[] big = new byte[201];
    assertThat(decoder.decode(big, event)).isEqualTo(DlqReason.TOO_LARGE);
    assertThat(decode("{\"key\":\"a\",\"ts\":1,\"pad\":\"" + "x".repeat(180) + "\"}"))
        .isEqualTo(DlqReason.TOO_LARGE);
  }

  @Test
  void shouldReportEmptyWhenTheValueIsNullEmptyOrBlank() {
    assertThat(decoder.decode(null, event)).isEqualTo(DlqReason.EMPTY);
    assertThat(decoder.decode(new byte[0], event)).isEqualTo(DlqReason.EMPTY);
    assertThat(decode("  \n\t")).isEqualTo(DlqReason.EMPTY);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{",
        "{\"key\":\"a\",\"ts\":1",
        "{\"key\":\"a\",\"ts\":1}}",
        "{\"key\":\"a\",\"ts\":1} x",
        "{\"key\":\"a\",\"ts\":1}{}",
        "{\"key\":\"a\" \"ts\":1}",
        "{key:\"a\"}",
        "{'key':'a'}",
        "[1,2",
        "nul",
        "{\"key\":\"a\",\"ts\":1,}",
        "{\"key\":\"a\",\"ts\":01}",
        "\u0000",
        "{\"key\":\"a\",\"ts\":1,\"x\":[1,2}",
        "{\"a\":\"\\q\"}",
        "{\"a\":\"unterminated}"
      })
  void shouldReportNotJsonWhenTheSyntaxIsBroken(String json) {
    assertThat(decode(json)).isEqualTo(DlqReason.NOT_JSON);
  }

  @Test
  void shouldReportNotJsonForInvalidUtf8() {
    byte[] bad = {'{', '"', 'k', (byte) 0xC3, (byte) 0x28, '"', ':', '1', '}'};
    assertThat(decoder.decode(bad, event)).isEqualTo(DlqReason.NOT_JSON);
  }

  @ParameterizedTest
  @ValueSource(strings = {"[]", "[{\"key\":\"a\",\"ts\":1}]", "\"text\"", "42", "true", "null"})
  void shouldReportNotObjectWhenTheTopLevelIsNotAnObject(String json) {
    assertThat(decode(json)).isEqualTo(DlqReason.NOT_OBJECT);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"ts\":1}",
        "{\"ts\":1,\"Key\":\"a\"}",
        "{\"ts\":1,\"m\":{\"key\":\"a\"}}",
        "{}"
      })
  void shouldReportMissingKeyWhenThereIsNoKey(String json) {
    assertThat(decode(json)).isEqualTo(DlqReason.MISSING_KEY);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"key\":\"\",\"ts\":1}", "{\"key\":null,\"ts\":1}", "{\"key\":true,\"ts\":1}",
        "{\"key\":{\"a\":1},\"ts\":1}", "{\"key\":[\"a\"],\"ts\":1}", "{\"key\":NaN,\"ts\":1}",
        "{\"key\":\"a\\ud800\",\"ts\":1}", "{\"key\":\"\\udc00b\",\"ts\":1}"
      })
  void shouldReportBadKeyWhenTheKeyIsNotAUsableScalar(String json) {
    assertThat(decode(json)).isEqualTo(DlqReason.BAD_KEY);
  }

  @Test
  void shouldReportTheKeyBeforeTheTimeWhenBothAreWrong() {
    assertThat(decode("{\"ts\":\"x\"}")).isEqualTo(DlqReason.MISSING_KEY);
    assertThat(decode("{\"key\":\"\"}")).isEqualTo(DlqReason.BAD_KEY);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"{\"key\":\"a\"}", "{\"key\":\"a\",\"TS\":1}", "{\"key\":\"a\",\"m\":{\"ts\":1}}"})
  void shouldReportMissingTimeWhenThereIsNoTime(String json) {
    assertThat(decode(json)).isEqualTo(DlqReason.MISSING_TIME);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "1.5",
        "\"1.5\"",
        "null",
        "true",
        "{}",
        "[1]",
        "NaN",
        "Infinity",
        "-Infinity",
        "99999999999999999999",
        "8640000000000001",
        "-8640000000000001",
        "\"tomorrow\"",
        "\"2023-11-14\"",
        "\"2023-11-14T22:13:20\"",
        "\"2023-02-30T00:00:00Z\"",
        "\"2023-11-14T24:00:00Z\"",
        "\"2023-11-14T22:60:00Z\"",
        "\"2023-11-14T22:13:60Z\"",
        "\"2023-11-14T22:13:20.Z\"",
        "\"2023-11-14T22:13:20.1234567891Z\"",
        "\"2023-11-14T22:13:20+19:00\"",
        "\"2023-11-14T22:13:20+01:60\"",
        "\"2023-11-14T22:13:20Zjunk\"",
        "\"2023-11-14X22:13:20Z\"",
        "\"\"",
        "\"-\"",
        "\"99999999999999999999\"",
        "1e300"
      })
  void shouldReportBadTimeWhenTheTimeIsUnusable(String ts) {
    assertThat(decode("{\"key\":\"a\",\"ts\":" + ts + "}")).as(ts).isEqualTo(DlqReason.BAD_TIME);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "1700000000000|1700000000000",
        "0|0",
        "-1|-1",
        "1.7E12|1700000000000",
        "1700000000000.0|1700000000000",
        "\"1700000000000\"|1700000000000",
        "\"-5\"|-5",
        "8640000000000000|8640000000000000",
        "\"2023-11-14T22:13:20Z\"|1700000000000",
        "\"2023-11-14t22:13:20z\"|1700000000000",
        "\"2023-11-14 22:13:20Z\"|1700000000000",
        "\"2023-11-14T22:13Z\"|1699999980000",
        "\"2023-11-14T22:13:20.5Z\"|1700000000500",
        "\"2023-11-14T22:13:20.123456789Z\"|1700000000123",
        "\"2023-11-14T23:13:20+01:00\"|1700000000000",
        "\"2023-11-14T23:13:20+0100\"|1700000000000",
        "\"2023-11-14T23:13:20+01\"|1700000000000",
        "\"2023-11-14T17:43:20.250-04:30\"|1700000000250",
        "\"1969-12-31T23:59:59.999Z\"|-1",
        "\"2024-02-29T00:00:00Z\"|1709164800000",
        "\"0001-01-01T00:00:00Z\"|-62135596800000"
      })
  void shouldReadEpochMillisAndIsoInstantsWhenTheFormatIsAuto(String ts, long expected) {
    assertThat(decode("{\"key\":\"a\",\"ts\":" + ts + "}")).as(ts).isNull();
    assertThat(event.eventTimeMs()).isEqualTo(expected);
  }

  @Test
  void shouldAcceptOnlyEpochMillisWhenTheFormatIsEpochMs() {
    EventDecoder epoch = new EventDecoder(job(Map.of("SKEWER_INPUT_TIME_FORMAT", "EPOCH_MS")));
    assertThat(epoch.decode(bytes("{\"key\":\"a\",\"ts\":1700000000000}"), event)).isNull();
    assertThat(epoch.decode(bytes("{\"key\":\"a\",\"ts\":\"1700000000000\"}"), event)).isNull();
    assertThat(epoch.decode(bytes("{\"key\":\"a\",\"ts\":\"2023-11-14T22:13:20Z\"}"), event))
        .isEqualTo(DlqReason.BAD_TIME);
  }

  @Test
  void shouldAcceptOnlyIsoStringsWhenTheFormatIsIso() {
    EventDecoder iso = new EventDecoder(job(Map.of("SKEWER_INPUT_TIME_FORMAT", "ISO_8601")));
    assertThat(iso.decode(bytes("{\"key\":\"a\",\"ts\":\"2023-11-14T22:13:20Z\"}"), event))
        .isNull();
    assertThat(event.eventTimeMs()).isEqualTo(1_700_000_000_000L);
    assertThat(iso.decode(bytes("{\"key\":\"a\",\"ts\":1700000000000}"), event))
        .isEqualTo(DlqReason.BAD_TIME);
    assertThat(iso.decode(bytes("{\"key\":\"a\",\"ts\":1.7e12}"), event))
        .isEqualTo(DlqReason.BAD_TIME);
    assertThat(iso.decode(bytes("{\"key\":\"a\",\"ts\":\"1700000000000\"}"), event))
        .isEqualTo(DlqReason.BAD_TIME);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "\"value\":NaN",
        "\"value\":Infinity",
        "\"value\":-Infinity",
        "\"value\":+Infinity",
        "\"value\":1e999",
        "\"value\":-1e999",
        "\"m\":{\"cost\":NaN}"
      })
  void shouldReportNonFiniteNumberWhenAMappedNumberIsNotFinite(String field) {
    assertThat(decode("{\"key\":\"a\",\"ts\":1," + field + "}"))
        .as(field)
        .isEqualTo(DlqReason.NON_FINITE_NUMBER);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "\"value\":\"12\"",
        "\"value\":\"12.5\"",
        "\"value\":true",
        "\"value\":{}",
        "\"value\":[1]",
        "\"m\":{\"cost\":\"x\"}",
        "\"value\":NaN,\"m\":{\"cost\":\"3\"}"
      })
  void shouldReportNotANumberWhenAMappedNumberIsAStringBooleanObjectOrArray(String field) {
    assertThat(decode("{\"key\":\"a\",\"ts\":1," + field + "}"))
        .as(field)
        .isEqualTo(DlqReason.NOT_A_NUMBER);
  }

  @ParameterizedTest
  @ValueSource(strings = {"order#12", "order#7", "a#1#2", "#3", "ad42#"})
  void shouldKeepKeysThatLookSaltedAsTheUserWroteThem(String key) {
    assertThat(decode("{\"key\":\"" + key + "\",\"ts\":1}")).isNull();
    assertThat(event.key()).isEqualTo(key);
  }

  @Test
  void shouldReportNonFiniteNumberWhenAnIntegerOverflowsADouble() {
    EventDecoder roomy = new EventDecoder(job(Map.of("SKEWER_INPUT_MAX_RECORD_BYTES", "2000")));
    assertThat(
            roomy.decode(
                bytes("{\"key\":\"a\",\"ts\":1,\"value\":1" + "0".repeat(400) + "}"), event))
        .isEqualTo(DlqReason.NON_FINITE_NUMBER);
  }

  @Test
  void shouldIgnoreNonFiniteNumbersInUnmappedFields() {
    assertThat(decode("{\"key\":\"a\",\"ts\":1,\"other\":NaN,\"x\":{\"y\":Infinity}}")).isNull();
  }

  @Test
  void shouldReportTimeBeforeNumbersWhenBothAreWrong() {
    assertThat(decode("{\"key\":\"a\",\"ts\":\"x\",\"value\":NaN}")).isEqualTo(DlqReason.BAD_TIME);
  }

  @Test
  void shouldMatchEscapedPointerSegments() {
    JobSpec job =
        JobSpecLoader.parse(
            "name: t\ninput: {keyPointer: '/a~1b/c~0d', timePointer: /t}\nwindow: {size: 1s}\n",
            Map.of());
    DecodedEvent e = DecodedEvent.forJob(job);
    assertThat(new EventDecoder(job).decode(bytes("{\"t\":1,\"a/b\":{\"c~d\":\"k\"}}"), e))
        .isNull();
    assertThat(e.key()).isEqualTo("k");
  }

  @Test
  void shouldFeedTheSameFieldToSeveralTargets() {
    JobSpec job =
        JobSpecLoader.parse(
            "name: t\ninput: {keyPointer: /u, timePointer: /t, distinctPointer: /u, frequencyPointer: /u}\n"
                + "window: {size: 1s}\n",
            Map.of());
    DecodedEvent e = DecodedEvent.forJob(job);
    assertThat(new EventDecoder(job).decode(bytes("{\"t\":1,\"u\":\"x#2\"}"), e)).isNull();
    assertThat(e.key()).isEqualTo("x#2");
    assertThat(e.distinctItem()).isEqualTo("x#2");
    assertThat(e.frequencyItem()).isEqualTo("x#2");
  }

  @Test
  void shouldNeverStripWhatLooksLikeASaltWhateverTheSeparator() {
    EventDecoder tilde = new EventDecoder(job(Map.of("SKEWER_INPUT_SALT_SEPARATOR", "~")));
    assertThat(tilde.decode(bytes("{\"key\":\"ad#3~12\",\"ts\":1}"), event)).isNull();
    assertThat(event.key()).isEqualTo("ad#3~12");
  }

  @Test
  void shouldDecodeUnicodeKeysAndEscapes() {
    assertThat(decode("{\"key\":\"caf\\u00e9 \u2603\",\"ts\":1}")).isNull();
    assertThat(event.key()).isEqualTo("café ☃");
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}

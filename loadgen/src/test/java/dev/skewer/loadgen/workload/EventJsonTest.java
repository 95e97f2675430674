package dev.skewer.loadgen.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class EventJsonTest {

  @Test
  void shouldWriteCanonicalShapeWhenEncoding() {
    byte[] json = EventJson.encode("ad17", "u123", 12.3, 1_700_000_000_000L);
    assertThat(new String(json, StandardCharsets.US_ASCII))
        .isEqualTo("{\"key\":\"ad17\",\"user\":\"u123\",\"value\":12.3,\"ts\":1700000000000}");
  }

  @Test
  void shouldWriteAtMostThreeDecimalsWhenFormattingValues() {
    assertThat(format(20.0)).isEqualTo("20.0");
    assertThat(format(0.005)).isEqualTo("0.005");
    assertThat(format(0.05)).isEqualTo("0.05");
    assertThat(format(1.2345)).isEqualTo("1.235");
    assertThat(format(123.4001)).isEqualTo("123.4");
    assertThat(format(-1.25)).isEqualTo("-1.25");
    assertThat(format(0.0004)).isEqualTo("0.0");
  }

  @Test
  void shouldParseBackToTheSameDoubleWhenRounded() {
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < 10_000; i++) {
      double value = EventJson.round3(Math.exp(3 + random.nextGaussian()));
      assertThat(Double.parseDouble(format(value))).isEqualTo(value);
    }
  }

  @Test
  void shouldBreakEachMalformationWhenAsked() {
    for (Malformation m : Malformation.values()) {
      String text =
          new String(
              EventJson.malformed(m, "ad1", "u1", 2.5, 1_700_000_000_000L),
              StandardCharsets.US_ASCII);
      switch (m) {
        case NOT_JSON -> assertThat(text).doesNotStartWith("{").doesNotStartWith("[");
        case JSON_ARRAY -> assertThat(text).startsWith("[").endsWith("]");
        case MISSING_KEY -> assertThat(text).doesNotContain("\"key\"").contains("\"ts\"");
        case MISSING_TS -> assertThat(text).doesNotContain("\"ts\"").contains("\"key\"");
        case NAN_VALUE -> assertThat(text).contains("\"value\":NaN,");
        case HUGE -> assertThat(text.length()).isGreaterThan(EventJson.HUGE_RECORD_BYTES);
      }
    }
  }

  private static String format(double value) {
    return EventJson.appendDecimal3(new StringBuilder(), value).toString();
  }
}

package dev.skewer.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class TimeArgumentTest {

  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2024-05-02T13:14:15.678Z"), ZoneOffset.UTC);

  @Test
  void shouldParseEveryDocumentedForm() {
    assertThat(TimeArgument.parse("2024-05-01T00:00:00Z", CLOCK))
        .isEqualTo(Instant.parse("2024-05-01T00:00:00Z"));
    assertThat(TimeArgument.parse("2024-05-01T02:00:00+02:00", CLOCK))
        .isEqualTo(Instant.parse("2024-05-01T00:00:00Z"));
    assertThat(TimeArgument.parse("2024-05-01", CLOCK))
        .isEqualTo(Instant.parse("2024-05-01T00:00:00Z"));
    assertThat(TimeArgument.parse("1714521600000", CLOCK))
        .isEqualTo(Instant.parse("2024-05-01T00:00:00Z"));
    assertThat(TimeArgument.parse("now", CLOCK))
        .isEqualTo(Instant.parse("2024-05-02T13:14:15.678Z"));
    assertThat(TimeArgument.parse("now-2h", CLOCK))
        .isEqualTo(Instant.parse("2024-05-02T11:14:15.678Z"));
    assertThat(TimeArgument.parse("today", CLOCK)).isEqualTo(Instant.parse("2024-05-02T00:00:00Z"));
    assertThat(TimeArgument.parse("today-1d", CLOCK))
        .isEqualTo(Instant.parse("2024-05-01T00:00:00Z"));
    assertThat(TimeArgument.parse("today+90m", CLOCK))
        .isEqualTo(Instant.parse("2024-05-02T01:30:00Z"));
  }

  @Test
  void shouldNameTheAcceptedFormsWhenTheTextIsBad() {
    for (String bad : new String[] {"", "yesterday", "now-", "now*2h", "2024-13-01", "today-1x"}) {
      assertThatThrownBy(() -> TimeArgument.parse(bad, CLOCK))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("is not an instant")
          .hasMessageContaining("today-1d");
    }
  }
}

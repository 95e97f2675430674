package dev.skewer.reconcile;

import dev.skewer.core.job.Durations;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;

/**
 * Instants on the command line: {@code 2024-05-01T00:00:00Z} (ISO-8601 with a zone or offset),
 * {@code 2024-05-01} (midnight UTC), {@code 1714521600000} (epoch ms), or {@code now} / {@code
 * today} (midnight UTC of the current day) optionally followed by {@code -} or {@code +} and a
 * duration in the job file's syntax ({@code today-1d}, {@code now-2h}, {@code now-90m}). A nightly
 * run checks yesterday with {@code --from today-1d --to today}.
 */
public final class TimeArgument {

  private TimeArgument() {}

  /**
   * Parses {@code text}.
   *
   * @throws IllegalArgumentException naming the text and the accepted forms
   */
  public static Instant parse(String text, Clock clock) {
    String t = text == null ? "" : text.trim();
    try {
      if (t.startsWith("now") || t.startsWith("today")) {
        String base = t.startsWith("now") ? "now" : "today";
        Instant at =
            base.equals("now")
                ? clock.instant().truncatedTo(ChronoUnit.MILLIS)
                : LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC)
                    .atStartOfDay(ZoneOffset.UTC)
                    .toInstant();
        String rest = t.substring(base.length());
        if (rest.isEmpty()) {
          return at;
        }
        char sign = rest.charAt(0);
        if (sign != '-' && sign != '+') {
          throw new IllegalArgumentException(rest);
        }
        Duration d = Durations.parse(rest.substring(1));
        if (d.isNegative()) {
          throw new IllegalArgumentException(rest);
        }
        return sign == '-' ? at.minus(d) : at.plus(d);
      }
      if (!t.isEmpty() && t.chars().allMatch(Character::isDigit)) {
        return Instant.ofEpochMilli(Long.parseLong(t));
      }
      if (t.length() == 10) {
        return LocalDate.parse(t).atStartOfDay(ZoneOffset.UTC).toInstant();
      }
      return OffsetDateTime.parse(t).toInstant();
    } catch (DateTimeParseException | IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "'"
              + text
              + "' is not an instant: use 2024-05-01T00:00:00Z, 2024-05-01 (UTC), epoch ms, or"
              + " now/today with an optional -/+duration (today-1d, now-2h)",
          e);
    }
  }
}

package dev.skewer.core.job;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses and prints the durations of job files: {@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h},
 * {@code 1d} (an optional leading minus, whole numbers) or ISO-8601 ({@code PT10S}).
 */
public final class Durations {

  private static final Pattern SHORT = Pattern.compile("(-?\\d{1,18})\\s*(ms|s|m|h|d)");

  private Durations() {}

  /**
   * Parses {@code text}; throws {@link JobSpecException} with an empty path (the caller adds it)
   * when the text is not a duration.
   */
  public static Duration parse(String text) {
    String t = text.trim();
    Matcher m = SHORT.matcher(t);
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      try {
        switch (m.group(2)) {
          case "ms":
            return Duration.ofMillis(n);
          case "s":
            return Duration.ofSeconds(n);
          case "m":
            return Duration.ofMinutes(n);
          case "h":
            return Duration.ofHours(n);
          default:
            return Duration.ofDays(n);
        }
      } catch (ArithmeticException e) {
        throw new JobSpecException("", "duration out of range, was " + text);
      }
    }
    if (t.startsWith("P") || t.startsWith("-P") || t.startsWith("p") || t.startsWith("-p")) {
      try {
        return Duration.parse(t);
      } catch (DateTimeParseException e) {
        // fall through to the common message
      }
    }
    throw new JobSpecException(
        "", "expected a duration like 500ms, 10s, 2m, 1h or PT10S, was " + text);
  }

  /** A short human form: {@code 2m}, {@code 10s}, {@code 500ms}, {@code -5s}; ISO otherwise. */
  public static String format(Duration d) {
    if (d == null) {
      return "null";
    }
    if (d.getNano() % 1_000_000 != 0) {
      return d.toString();
    }
    long ms;
    try {
      ms = d.toMillis();
    } catch (ArithmeticException e) {
      return d.toString();
    }
    if (ms == 0) {
      return "0s";
    }
    if (ms % 86_400_000L == 0) {
      return ms / 86_400_000L + "d";
    }
    if (ms % 3_600_000L == 0) {
      return ms / 3_600_000L + "h";
    }
    if (ms % 60_000L == 0) {
      return ms / 60_000L + "m";
    }
    if (ms % 1_000L == 0) {
      return ms / 1_000L + "s";
    }
    return ms + "ms";
  }

  static boolean wholeMillis(Duration d) {
    return d.getNano() % 1_000_000 == 0;
  }
}

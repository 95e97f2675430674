package dev.skewer.core.job;

import java.time.Duration;
import java.util.regex.Pattern;

/** Validation of the names that become JSON field names in results. */
final class Names {
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");

  private Names() {}

  static void requireIdentifier(String field, String value) {
    if (value == null) {
      throw new JobSpecException(field, "is required");
    }
    if (!IDENTIFIER.matcher(value).matches()) {
      throw new JobSpecException(
          field,
          "must be letters, digits and '_' (not starting with a digit, at most 64), was '"
              + value
              + "'");
    }
  }

  static void requireNonNull(String field, Object value) {
    if (value == null) {
      throw new JobSpecException(field, "is required");
    }
  }

  static void requireWholeMillis(String field, Duration d) {
    if (!Durations.wholeMillis(d)) {
      throw new JobSpecException(field, "must be whole milliseconds, was " + d);
    }
  }
}

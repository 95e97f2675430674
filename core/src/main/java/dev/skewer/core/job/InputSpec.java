package dev.skewer.core.job;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Where each input of the aggregation is found in an event (JSON pointers, RFC 6901).
 *
 * @param keyPointer the grouping key (a string or number); required
 * @param timePointer the event time; required
 * @param timeFormat how the event time is written; null means {@link TimeFormat#AUTO}
 * @param numericFields fields with sum/min/max; null means none
 * @param distinctPointer the item whose distinct count is estimated (HyperLogLog++), or null
 * @param quantilePointer the value whose quantiles are estimated (t-digest), or null
 * @param frequencyPointer the item whose heavy hitters are estimated (Count-Min), or null
 * @param maxRecordBytes larger records go to the DLQ ({@code TOO_LARGE})
 * @param saltSeparator the separator of hot-key salts ({@code ad42#3}); null means {@code #}
 * @param dimensions string fields copied to the result; null means none
 */
public record InputSpec(
    String keyPointer,
    String timePointer,
    TimeFormat timeFormat,
    List<NumericField> numericFields,
    String distinctPointer,
    String quantilePointer,
    String frequencyPointer,
    int maxRecordBytes,
    String saltSeparator,
    List<Dimension> dimensions) {

  public static final TimeFormat DEFAULT_TIME_FORMAT = TimeFormat.AUTO;
  public static final int DEFAULT_MAX_RECORD_BYTES = 65_536;
  public static final String DEFAULT_SALT_SEPARATOR = "#";

  private static final Set<String> RESERVED_RESULT_NAMES =
      Set.of("window_start_ms", "window_end_ms", "event_count", "revision");
  private static final Pattern RESULT_NAME_PREFIX =
      Pattern.compile("sum_|min_|max_|distinct_|top_|p[0-9]");

  public InputSpec {
    Pointers.validate("keyPointer", keyPointer);
    Pointers.validate("timePointer", timePointer);
    timeFormat = timeFormat == null ? DEFAULT_TIME_FORMAT : timeFormat;
    numericFields = numericFields == null ? List.of() : List.copyOf(numericFields);
    dimensions = dimensions == null ? List.of() : List.copyOf(dimensions);
    if (distinctPointer != null) {
      Pointers.validate("distinctPointer", distinctPointer);
    }
    if (quantilePointer != null) {
      Pointers.validate("quantilePointer", quantilePointer);
    }
    if (frequencyPointer != null) {
      Pointers.validate("frequencyPointer", frequencyPointer);
    }
    if (maxRecordBytes < 1 || maxRecordBytes > 16 * 1024 * 1024) {
      throw new JobSpecException(
          "maxRecordBytes", "must be in [1, 16777216], was " + maxRecordBytes);
    }
    saltSeparator = saltSeparator == null ? DEFAULT_SALT_SEPARATOR : saltSeparator;
    if (saltSeparator.isEmpty() || saltSeparator.chars().anyMatch(Character::isDigit)) {
      throw new JobSpecException(
          "saltSeparator", "must be non-empty and contain no digit, was '" + saltSeparator + "'");
    }
    if (numericFields.size() > 64) {
      throw new JobSpecException("numericFields", "at most 64 fields, was " + numericFields.size());
    }
    Set<String> names = new HashSet<>();
    for (int i = 0; i < numericFields.size(); i++) {
      if (numericFields.get(i) == null) {
        throw new JobSpecException("numericFields[" + i + "]", "must not be null");
      }
      if (!names.add(numericFields.get(i).name())) {
        throw new JobSpecException(
            "numericFields[" + i + "].name",
            "duplicate name '" + numericFields.get(i).name() + "'");
      }
    }
    for (int i = 0; i < dimensions.size(); i++) {
      if (dimensions.get(i) == null) {
        throw new JobSpecException("dimensions[" + i + "]", "must not be null");
      }
      String n = dimensions.get(i).name();
      if (RESERVED_RESULT_NAMES.contains(n) || RESULT_NAME_PREFIX.matcher(n).lookingAt()) {
        throw new JobSpecException(
            "dimensions[" + i + "].name",
            "clashes with a result field name (window_start_ms, window_end_ms, event_count,"
                + " revision, sum_*, min_*, max_*, distinct_*, top_*, p<digit>*), was '"
                + n
                + "'");
      }
      if (!names.add(dimensions.get(i).name())) {
        throw new JobSpecException(
            "dimensions[" + i + "].name",
            "duplicate name '"
                + dimensions.get(i).name()
                + "' (names are shared with numericFields)");
      }
    }
  }

  /** The name used in result fields for the distinct count, or null when it is off. */
  public String distinctName() {
    return distinctPointer == null ? null : Pointers.name(distinctPointer);
  }

  /** The name used in result fields for quantiles, or null when they are off. */
  public String quantileName() {
    return quantilePointer == null ? null : Pointers.name(quantilePointer);
  }

  /** The name used in result fields for heavy hitters, or null when they are off. */
  public String frequencyName() {
    return frequencyPointer == null ? null : Pointers.name(frequencyPointer);
  }
}

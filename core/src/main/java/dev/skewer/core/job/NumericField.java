package dev.skewer.core.job;

/**
 * A numeric event field whose sum, min and max are kept per (key, window).
 *
 * @param name the name used in result fields ({@code sum_<name>}); letters, digits, {@code _}
 * @param pointer the JSON pointer of the value in the event ({@code /latency_ms})
 */
public record NumericField(String name, String pointer) {
  public NumericField {
    Names.requireIdentifier("name", name);
    Pointers.validate("pointer", pointer);
  }
}

package dev.skewer.core.event;

/**
 * Why an event was sent to the dead-letter topic. {@link #code()} is stable and goes into the DLQ
 * record's header; it never changes once released.
 */
public enum DlqReason {
  /** The record value is larger than {@code input.maxRecordBytes} (checked first). */
  TOO_LARGE("too_large"),
  /** The record value is null, empty or whitespace only. */
  EMPTY("empty"),
  /** The value is not one well-formed JSON document (syntax error, trailing content). */
  NOT_JSON("not_json"),
  /** The top-level JSON value is not an object. */
  NOT_OBJECT("not_object"),
  /** No value at {@code input.keyPointer}. */
  MISSING_KEY("missing_key"),
  /** The key is not a string or number, is empty, or is not well-formed UTF-16. */
  BAD_KEY("bad_key"),
  /** No value at {@code input.timePointer}. */
  MISSING_TIME("missing_time"),
  /** The event time is not parseable in the configured format, not integral, or out of range. */
  BAD_TIME("bad_time"),
  /**
   * A mapped numeric field is a string (even of digits), a boolean, an object or an array: JSON
   * numbers only, no coercion.
   */
  NOT_A_NUMBER("not_a_number"),
  /** A mapped numeric field is NaN, ±Infinity or a number too large for a double. */
  NON_FINITE_NUMBER("non_finite_number"),
  /**
   * The event time is further ahead of the wall clock than {@code watermark.maxFutureSkew}. Checked
   * by the node, not by the decoder.
   */
  FUTURE_TIME("future_time"),
  /** A value the aggregate refuses (e.g. an item with a lone UTF-16 surrogate); node-checked. */
  INVALID_VALUE("invalid_value");

  /** The name of the Kafka header that carries {@link #code()} on DLQ records. */
  public static final String HEADER = "skewer.dlq.reason";

  private final String code;

  DlqReason(String code) {
    this.code = code;
  }

  /** The stable lower-case code written to the DLQ header. */
  public String code() {
    return code;
  }

  /** The reason with this code, or null. */
  public static DlqReason ofCode(String code) {
    for (DlqReason r : values()) {
      if (r.code.equals(code)) {
        return r;
      }
    }
    return null;
  }
}

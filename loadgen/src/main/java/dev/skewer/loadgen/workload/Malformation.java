package dev.skewer.loadgen.workload;

/** The ways a generated MALFORMED event is broken; each must land in the DLQ. */
public enum Malformation {
  /** Not JSON at all. */
  NOT_JSON,
  /** Valid JSON, but an array rather than an object. */
  JSON_ARRAY,
  /** An object without the key field. */
  MISSING_KEY,
  /** An object without the event-time field. */
  MISSING_TS,
  /** An object whose value is the bare token {@code NaN} (not valid JSON; non-finite anyway). */
  NAN_VALUE,
  /** A well-formed object padded past {@link EventJson#HUGE_RECORD_BYTES} (over-size record). */
  HUGE
}

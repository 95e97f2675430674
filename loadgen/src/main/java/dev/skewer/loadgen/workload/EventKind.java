package dev.skewer.loadgen.workload;

/** What a generated event was made to be, and so where a correct node should route it. */
public enum EventKind {
  /** A well-formed event with bounded disorder. */
  NORMAL,
  /**
   * A well-formed event generated far behind the current time (beyond the allowed lateness). It is
   * usually, but not necessarily, too late: only the partition's watermark decides (see {@link
   * dev.skewer.loadgen.reference.ExactReference}).
   */
  LATE,
  /** Not a valid event (not JSON, not an object, missing field, NaN, over-size): DLQ. */
  MALFORMED,
  /** A well-formed event whose event time is two days in the future: rejected to the DLQ. */
  FUTURE
}

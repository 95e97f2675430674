package dev.skewer.reconcile;

/**
 * An input record that is not in exactly one of {a result, the late topic, the DLQ}, as far as the
 * record itself shows (counts that do not add up per result are {@link ResultDifference}s and the
 * totals' unaccounted events).
 *
 * @param kind what is wrong
 * @param sourcePartition the input partition
 * @param sourceOffset the input offset
 * @param detail a human explanation
 */
public record AccountingIssue(Kind kind, int sourcePartition, long sourceOffset, String detail) {

  /** What is wrong with an input record. */
  public enum Kind {
    /** The decoder refuses it, and no DLQ record names it: lost. */
    NOT_IN_DLQ,
    /**
     * The aggregate refuses one of its values (the node's {@code invalid_value}); not in the DLQ.
     */
    REFUSED_NOT_IN_DLQ,
    /** The DLQ holds it with a reason the decoder does not give (or the decoder accepts it). */
    DLQ_REASON_MISMATCH,
    /** Both the late topic and the DLQ hold it. */
    LATE_AND_DLQ,
    /** A side topic holds it more than once. */
    DUPLICATE_SIDE_OUTPUT,
    /** The decoder refuses it, yet it is in the late topic (only decodable events can be late). */
    UNDECODABLE_IN_LATE,
    /**
     * Hopping windows: its partition's watermark when it arrived put every window it belongs to
     * past lateness, yet the late topic does not hold it: lost.
     */
    LATE_NOT_IN_LATE_TOPIC
  }
}

package dev.skewer.reconcile;

import java.util.List;

/**
 * One result whose exact fields differ from the recomputation, that the stream did not write, or
 * that the stream wrote but the recomputation has no events for.
 *
 * @param resultKey the results-topic key, {@code <key>@<startMs>}
 * @param kind what is wrong
 * @param expectedCount the recomputed {@code event_count} (0 for {@link Kind#UNEXPECTED})
 * @param streamedCount the streamed {@code event_count} (0 for {@link Kind#MISSING})
 * @param streamedRevision the revision of the latest streamed record, -1 when there is none
 * @param fields the exact fields that differ ({@link Kind#MISMATCH} only)
 * @param sideEvents events of this key and interval that the late topic or the DLQ holds
 * @param note a human explanation where one can be given (e.g. the streamed record is superseded)
 */
public record ResultDifference(
    String resultKey,
    Kind kind,
    long expectedCount,
    long streamedCount,
    int streamedRevision,
    List<FieldDifference> fields,
    long sideEvents,
    String note) {

  public ResultDifference {
    fields = List.copyOf(fields);
  }

  /** What is wrong with a result. */
  public enum Kind {
    /** Both exist; an exact field (count, sum, min, max, bounds, dimensions…) differs. */
    MISMATCH,
    /** The recomputation has the result; the results topic has no live record for it. */
    MISSING,
    /** The results topic has a live record the recomputation has no events for. */
    UNEXPECTED
  }

  /**
   * One differing field.
   *
   * @param field the field name ({@code event_count}, {@code sum_value}, …; envelope fields by
   *     name)
   * @param expected the recomputed value as JSON text
   * @param streamed the streamed value as JSON text, {@code absent} when missing
   */
  public record FieldDifference(String field, String expected, String streamed) {}
}

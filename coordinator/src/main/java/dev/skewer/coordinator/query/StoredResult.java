package dev.skewer.coordinator.query;

import dev.skewer.core.result.FormattedResult;
import dev.skewer.sketches.Aggregate;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * One (key, window) result as the results topic holds it: the fields the top-K ranks by, and the
 * envelope's bytes, verbatim, for everything else (estimates, provenance). The provenance object is
 * where the envelope has it, by position: the API reads that object alone without parsing the
 * envelope, and the view holds no second copy of it.
 *
 * @param key the key
 * @param windowStartMs the window (session) start
 * @param windowEndMs the window end (for sessions: last event + 1)
 * @param revision 0 for the final result, higher for revisions
 * @param count the exact event count
 * @param sums the sum of each numeric field, job order (NaN where the envelope had null)
 * @param distinct the distinct-count estimate, NaN when the job counts none
 * @param superseded whether this session was merged into another one
 * @param provenanceFrom where the envelope's provenance object starts in {@code envelope} (its
 *     {@code '{'}), {@link #NO_PROVENANCE} when it has none
 * @param provenanceTo where it ends (just after its {@code '}'}), {@link #NO_PROVENANCE} when none
 * @param envelope the record value (UTF-8 JSON), not copied: treat as immutable
 */
public record StoredResult(
    String key,
    long windowStartMs,
    long windowEndMs,
    int revision,
    long count,
    double[] sums,
    double distinct,
    boolean superseded,
    int provenanceFrom,
    int provenanceTo,
    byte[] envelope) {

  /** The provenance position of a result whose envelope has no provenance object. */
  public static final int NO_PROVENANCE = FormattedResult.NO_PROVENANCE;

  /**
   * Heap bytes a stored result takes besides its key and envelope: the record, the sums array, the
   * map node and table slot that index it.
   */
  static final int OVERHEAD_BYTES = 192;

  public StoredResult {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(sums, "sums");
    Objects.requireNonNull(envelope, "envelope");
    if (revision < 0) {
      throw new IllegalArgumentException("revision must be >= 0, was " + revision);
    }
    boolean none = provenanceFrom == NO_PROVENANCE && provenanceTo == NO_PROVENANCE;
    if (!none
        && (provenanceFrom < 0
            || provenanceTo <= provenanceFrom
            || provenanceTo > envelope.length)) {
      throw new IllegalArgumentException(
          "provenance must lie within the envelope's "
              + envelope.length
              + " bytes, was ["
              + provenanceFrom
              + ", "
              + provenanceTo
              + ")");
    }
  }

  /**
   * The result a writer has just formatted, as {@link ResultParser} would read it back from {@code
   * formatted}'s bytes (tested to be equal): a sum that is not finite was written as null and reads
   * as NaN.
   *
   * @param windowEndMs the window end (for sessions: last event + 1)
   */
  public static StoredResult written(
      String key,
      long windowStartMs,
      long windowEndMs,
      int revision,
      Aggregate aggregate,
      boolean superseded,
      FormattedResult formatted) {
    double[] sums = new double[aggregate.spec().numericFields()];
    for (int i = 0; i < sums.length; i++) {
      double s = aggregate.sum(i);
      sums[i] = Double.isFinite(s) ? s : Double.NaN;
    }
    return new StoredResult(
        key,
        windowStartMs,
        windowEndMs,
        revision,
        aggregate.count(),
        sums,
        formatted.distinctEstimate(),
        superseded,
        formatted.provenanceFrom(),
        formatted.provenanceTo(),
        formatted.bytes());
  }

  /** Estimated heap bytes: {@link #OVERHEAD_BYTES} + key + envelope + sums. */
  public long estimatedBytes() {
    return OVERHEAD_BYTES + 2L * key.length() + envelope.length + 8L * sums.length;
  }

  /** The envelope's provenance object as its text, or null when it has none. */
  public String provenanceText() {
    return provenanceFrom == NO_PROVENANCE
        ? null
        : new String(
            envelope, provenanceFrom, provenanceTo - provenanceFrom, StandardCharsets.UTF_8);
  }

  /** The envelope as text. */
  public String envelopeText() {
    return new String(envelope, StandardCharsets.UTF_8);
  }
}

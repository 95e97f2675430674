package dev.skewer.coordinator.merge;

import dev.skewer.sketches.Aggregate;
import java.util.Objects;

/**
 * A merged (key, window) or (key, session) ready to be written: revision 0 is the final result
 * emitted when the window or session closed; higher revisions follow late-but-allowed input.
 *
 * <p>{@code [windowStartMs, windowEndMs)} is half-open and never empty, for every shape: for
 * sessions it runs from the first event to the last event + 1 ms (the envelope writes {@code
 * session_end_ms} = the last event time), and the result key is {@code key@windowStartMs}. A
 * session that a late event merged into an earlier-starting one is emitted once more, {@linkplain
 * #superseded() superseded}: with an empty aggregate, the next revision of its own result key, and
 * {@link #supersededByStartMs} the start of the session that absorbed it.
 *
 * @param dimensions the dimension values of the earliest event ({@code input.dimensions} order,
 *     null where absent); empty when none were carried
 * @param supersededByStartMs the start of the absorbing session, or {@link #NOT_SUPERSEDED}
 * @param sources the source partitions (and their epochs) whose Partials are merged
 */
public record FinalResult(
    String key,
    long windowStartMs,
    long windowEndMs,
    Aggregate aggregate,
    int revision,
    String[] dimensions,
    long supersededByStartMs,
    ResultSources sources) {

  /** {@link #supersededByStartMs} of a live result. */
  public static final long NOT_SUPERSEDED = Long.MIN_VALUE;

  private static final String[] NONE = new String[0];

  public FinalResult {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(aggregate, "aggregate");
    dimensions = dimensions == null ? NONE : dimensions;
    sources = sources == null ? ResultSources.NONE : sources;
  }

  /** A result whose sources are not tracked (tests, batch recomputation). */
  public FinalResult(
      String key,
      long windowStartMs,
      long windowEndMs,
      Aggregate aggregate,
      int revision,
      String[] dimensions,
      long supersededByStartMs) {
    this(
        key,
        windowStartMs,
        windowEndMs,
        aggregate,
        revision,
        dimensions,
        supersededByStartMs,
        ResultSources.NONE);
  }

  /** A live result without dimensions. */
  public FinalResult(
      String key, long windowStartMs, long windowEndMs, Aggregate aggregate, int revision) {
    this(
        key,
        windowStartMs,
        windowEndMs,
        aggregate,
        revision,
        NONE,
        NOT_SUPERSEDED,
        ResultSources.NONE);
  }

  /**
   * Whether a late bridging event merged this session into the one starting at {@link
   * #supersededByStartMs}.
   */
  public boolean superseded() {
    return supersededByStartMs != NOT_SUPERSEDED;
  }
}

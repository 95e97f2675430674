package dev.skewer.core.window;

import dev.skewer.core.job.TumblingWindow;
import dev.skewer.core.job.WindowSpec;

/**
 * Assigns event times to slices: the non-overlapping, epoch-aligned intervals
 * {@code [windowStartMs, windowEndMs)} that nodes pre-aggregate. For tumbling windows a slice is
 * the window; hopping windows (to come) use slices of gcd(size, hop), so each event updates one
 * slice. Implementations are immutable, thread-safe and allocate nothing per call.
 */
public interface WindowAssigner {

  /** The start of the slice containing {@code eventTimeMs} (floor; correct for negative times). */
  long windowStartMs(long eventTimeMs);

  /** The exclusive end of the slice starting at {@code windowStartMs}. */
  long windowEndMs(long windowStartMs);

  /**
   * The assigner for {@code spec}; throws {@link UnsupportedOperationException} for window kinds
   * the runtime does not run yet ({@link WindowSpec#supportedByRuntime()} false).
   */
  static WindowAssigner of(WindowSpec spec) {
    if (spec instanceof TumblingWindow) {
      return new TumblingWindowAssigner(((TumblingWindow) spec).size().toMillis());
    }
    throw new UnsupportedOperationException(
        "window type '" + spec.type() + "' is not supported by the runtime yet: " + spec);
  }
}

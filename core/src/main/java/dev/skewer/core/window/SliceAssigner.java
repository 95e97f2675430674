package dev.skewer.core.window;

import dev.skewer.core.job.HoppingWindow;
import dev.skewer.core.job.SessionWindow;
import dev.skewer.core.job.TumblingWindow;
import dev.skewer.core.job.WindowSpec;

/**
 * Assigns event times to slices: the non-overlapping, epoch-aligned intervals {@code [sliceStartMs,
 * sliceEndMs)} that nodes pre-aggregate. For tumbling windows a slice is the window; hopping
 * windows use slices of gcd(size, hop) and sessions slices of at most the gap, so each event
 * updates exactly one slice whatever the overlap. Implementations are immutable, thread-safe and
 * allocate nothing per call.
 *
 * <p>A node emits a slice once the watermark reaches its end; at end of input its close point moves
 * to {@link #finalWatermarkMs} of the latest slice so the coordinator can close everything.
 * Lateness is judged per result, not per slice (the node's {@code PartitionAggregator}).
 */
public interface SliceAssigner {

  /** The start of the slice containing {@code eventTimeMs} (floor; correct for negative times). */
  long sliceStartMs(long eventTimeMs);

  /** The exclusive end of the slice starting at {@code sliceStartMs}. */
  long sliceEndMs(long sliceStartMs);

  /** How the coordinator composes results from these slices. */
  default WindowShape shape() {
    return WindowShape.Tumbling.INSTANCE;
  }

  /**
   * The watermark at which the coordinator can close every result the slice starting at {@code
   * sliceStartMs} contributes to (used at end of input).
   */
  default long finalWatermarkMs(long sliceStartMs) {
    return sliceEndMs(sliceStartMs);
  }

  /** The assigner for {@code spec}: tumbling, hopping (sliced) or session (sliced). */
  static SliceAssigner of(WindowSpec spec) {
    if (spec instanceof TumblingWindow t) {
      return new TumblingSliceAssigner(t.size().toMillis());
    }
    if (spec instanceof HoppingWindow h) {
      if (h.hop().equals(h.size())) {
        return new TumblingSliceAssigner(h.size().toMillis());
      }
      return new HoppingSliceAssigner(h.size().toMillis(), h.hop().toMillis());
    }
    if (spec instanceof SessionWindow s) {
      return new SessionSliceAssigner(s.gap().toMillis());
    }
    throw new UnsupportedOperationException(
        "window type '" + spec.type() + "' is not supported by the runtime: " + spec);
  }
}

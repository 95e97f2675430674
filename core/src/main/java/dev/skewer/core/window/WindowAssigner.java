package dev.skewer.core.window;

import dev.skewer.core.job.HoppingWindow;
import dev.skewer.core.job.SessionWindow;
import dev.skewer.core.job.TumblingWindow;
import dev.skewer.core.job.WindowSpec;

/**
 * Assigns event times to slices: the non-overlapping, epoch-aligned intervals {@code
 * [windowStartMs, windowEndMs)} that nodes pre-aggregate. For tumbling windows a slice is the
 * window; hopping windows use slices of gcd(size, hop) and sessions slices of at most the gap, so
 * each event updates exactly one slice whatever the overlap. Implementations are immutable,
 * thread-safe and allocate nothing per call.
 *
 * <p>Per slice, three instants drive a node: the slice is emitted once the watermark reaches its
 * end; an event of it is late, and the slice is dropped, once the watermark reaches {@link
 * #lateBoundaryMs} + allowed lateness; at end of input the watermark moves to {@link
 * #finalWatermarkMs} of the latest slice so the coordinator can close everything.
 */
public interface WindowAssigner {

  /** The start of the slice containing {@code eventTimeMs} (floor; correct for negative times). */
  long windowStartMs(long eventTimeMs);

  /** The exclusive end of the slice starting at {@code windowStartMs}. */
  long windowEndMs(long windowStartMs);

  /** How the coordinator composes results from these slices. */
  default WindowShape shape() {
    return WindowShape.Tumbling.INSTANCE;
  }

  /**
   * The instant that, plus allowed lateness, makes the events of the slice starting at {@code
   * sliceStartMs} late: the end of the earliest result the slice contributes to. An event is either
   * in every result it belongs to or routed to the late topic, never in some only.
   */
  default long lateBoundaryMs(long sliceStartMs) {
    return windowEndMs(sliceStartMs);
  }

  /**
   * The watermark at which the coordinator can close every result the slice starting at {@code
   * sliceStartMs} contributes to (used at end of input).
   */
  default long finalWatermarkMs(long sliceStartMs) {
    return windowEndMs(sliceStartMs);
  }

  /** The assigner for {@code spec}: tumbling, hopping (sliced) or session (sliced). */
  static WindowAssigner of(WindowSpec spec) {
    if (spec instanceof TumblingWindow t) {
      return new TumblingWindowAssigner(t.size().toMillis());
    }
    if (spec instanceof HoppingWindow h) {
      if (h.hop().equals(h.size())) {
        return new TumblingWindowAssigner(h.size().toMillis());
      }
      return new HoppingWindowAssigner(h.size().toMillis(), h.hop().toMillis());
    }
    if (spec instanceof SessionWindow s) {
      return new SessionWindowAssigner(s.gap().toMillis());
    }
    throw new UnsupportedOperationException(
        "window type '" + spec.type() + "' is not supported by the runtime: " + spec);
  }
}

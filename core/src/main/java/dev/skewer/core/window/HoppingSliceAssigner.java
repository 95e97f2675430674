package dev.skewer.core.window;

/**
 * Hopping windows {@code [k*hop, k*hop + size)} cut into epoch-aligned slices of gcd(size, hop):
 * every window is the union of size/gcd consecutive slices and every event updates exactly one
 * slice, so per-event cost and per-slice state do not grow with size/hop. Immutable and
 * thread-safe.
 *
 * <p>Implementation note: the slicing ("panes") is that of Li et al., "No pane, no gain: efficient
 * evaluation of sliding-window aggregates over data streams", SIGMOD Record 2005; the coordinator,
 * not the node, composes windows from panes.
 */
public final class HoppingSliceAssigner implements SliceAssigner {

  private final WindowShape.Hopping shape;
  private final long sliceMs;

  /**
   * @param sizeMs the window length, > 0
   * @param hopMs the distance between window starts, in (0, sizeMs]
   */
  public HoppingSliceAssigner(long sizeMs, long hopMs) {
    this.shape = new WindowShape.Hopping(sizeMs, hopMs);
    this.sliceMs = shape.sliceMs();
  }

  public long sliceMs() {
    return sliceMs;
  }

  @Override
  public long sliceStartMs(long eventTimeMs) {
    return eventTimeMs - Math.floorMod(eventTimeMs, sliceMs);
  }

  @Override
  public long sliceEndMs(long sliceStartMs) {
    return sliceStartMs + sliceMs;
  }

  @Override
  public WindowShape shape() {
    return shape;
  }

  /** The end of the latest window containing the slice. */
  @Override
  public long finalWatermarkMs(long sliceStartMs) {
    return shape.lastWindowEndMs(sliceStartMs);
  }

  @Override
  public String toString() {
    return "HoppingSliceAssigner[sizeMs="
        + shape.sizeMs()
        + ", hopMs="
        + shape.hopMs()
        + ", sliceMs="
        + sliceMs
        + "]";
  }
}

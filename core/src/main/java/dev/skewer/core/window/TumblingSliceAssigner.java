package dev.skewer.core.window;

/**
 * Epoch-aligned tumbling windows {@code [k*size, (k+1)*size)} for every integer k, including
 * negative ones. Immutable and thread-safe.
 */
public final class TumblingSliceAssigner implements SliceAssigner {

  private final long sizeMs;

  /**
   * @param sizeMs the window size in milliseconds, > 0
   */
  public TumblingSliceAssigner(long sizeMs) {
    if (sizeMs <= 0) {
      throw new IllegalArgumentException("sizeMs must be > 0, was " + sizeMs);
    }
    this.sizeMs = sizeMs;
  }

  public long sizeMs() {
    return sizeMs;
  }

  @Override
  public long sliceStartMs(long eventTimeMs) {
    return eventTimeMs - Math.floorMod(eventTimeMs, sizeMs);
  }

  @Override
  public long sliceEndMs(long sliceStartMs) {
    return sliceStartMs + sizeMs;
  }

  @Override
  public String toString() {
    return "TumblingSliceAssigner[sizeMs=" + sizeMs + "]";
  }
}

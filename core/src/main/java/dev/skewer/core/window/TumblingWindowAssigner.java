package dev.skewer.core.window;

/**
 * Epoch-aligned tumbling windows {@code [k*size, (k+1)*size)} for every integer k, including
 * negative ones. Immutable and thread-safe.
 */
public final class TumblingWindowAssigner implements WindowAssigner {

  private final long sizeMs;

  /**
   * @param sizeMs the window size in milliseconds, > 0
   */
  public TumblingWindowAssigner(long sizeMs) {
    if (sizeMs <= 0) {
      throw new IllegalArgumentException("sizeMs must be > 0, was " + sizeMs);
    }
    this.sizeMs = sizeMs;
  }

  public long sizeMs() {
    return sizeMs;
  }

  @Override
  public long windowStartMs(long eventTimeMs) {
    return eventTimeMs - Math.floorMod(eventTimeMs, sizeMs);
  }

  @Override
  public long windowEndMs(long windowStartMs) {
    return windowStartMs + sizeMs;
  }

  @Override
  public String toString() {
    return "TumblingWindowAssigner[sizeMs=" + sizeMs + "]";
  }
}

package dev.skewer.core.window;

/**
 * How the coordinator composes results from the slices nodes pre-aggregate. Every Partial carries
 * its shape, so the coordinator needs no window configuration of its own and refuses Partials of a
 * shape it is not merging (a misconfigured node).
 *
 * <ul>
 *   <li>{@link Tumbling}: a slice is a window; its Partial is a result's share.
 *   <li>{@link Hopping}: slices of gcd(size, hop); the window {@code [w, w + size)} (w a multiple
 *       of hop) is the union of the slices inside it.
 *   <li>{@link Session}: slices of at most the gap, each carrying the first and last event time it
 *       saw; sessions are chains of slice extents less than {@code gap} apart.
 * </ul>
 */
public sealed interface WindowShape {

  /** The wire code of this shape: 0 tumbling, 1 hopping, 2 session. */
  int code();

  /** Fixed-size, non-overlapping windows: a slice is the window. */
  record Tumbling() implements WindowShape {
    public static final Tumbling INSTANCE = new Tumbling();

    @Override
    public int code() {
      return 0;
    }
  }

  /**
   * Windows {@code [k*hop, k*hop + size)} built from slices of gcd(size, hop).
   *
   * @param sizeMs the window length, > 0
   * @param hopMs the distance between window starts, in (0, sizeMs]
   */
  record Hopping(long sizeMs, long hopMs) implements WindowShape {
    public Hopping {
      if (sizeMs <= 0) {
        throw new IllegalArgumentException("sizeMs must be > 0, was " + sizeMs);
      }
      if (hopMs <= 0 || hopMs > sizeMs) {
        throw new IllegalArgumentException("hopMs must be in (0, " + sizeMs + "], was " + hopMs);
      }
    }

    @Override
    public int code() {
      return 1;
    }

    /** The slice length: gcd(size, hop). */
    public long sliceMs() {
      return gcd(sizeMs, hopMs);
    }

    /** The end of the earliest window containing {@code timeMs}. */
    public long firstWindowEndMs(long timeMs) {
      return (Math.floorDiv(timeMs - sizeMs, hopMs) + 1) * hopMs + sizeMs;
    }

    /** The end of the latest window containing {@code timeMs}. */
    public long lastWindowEndMs(long timeMs) {
      return Math.floorDiv(timeMs, hopMs) * hopMs + sizeMs;
    }
  }

  /**
   * Per-key sessions: events less than {@code gapMs} apart belong to one session.
   *
   * @param gapMs the inactivity gap, > 0
   */
  record Session(long gapMs) implements WindowShape {
    public Session {
      if (gapMs <= 0) {
        throw new IllegalArgumentException("gapMs must be > 0, was " + gapMs);
      }
    }

    @Override
    public int code() {
      return 2;
    }
  }

  static long gcd(long a, long b) {
    while (b != 0) {
      long t = a % b;
      a = b;
      b = t;
    }
    return a;
  }
}

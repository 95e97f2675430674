package dev.skewer.core.window;

/**
 * Session slices: epoch-aligned slices of {@code max(1, gap / 4)} ms. Two events of one slice are
 * less than the gap apart, so a slice's events always belong to one session; a node keeps per (key,
 * slice) the aggregate plus the first and last event time, and the coordinator chains slice extents
 * less than the gap apart into sessions. Immutable and thread-safe.
 *
 * <p>A session ending at {@code e} is final once the global watermark reaches {@link
 * #closeBoundaryMs} {@code (e)}: the first slice boundary at or after {@code e + gap} (between
 * {@code e + gap} and {@code e + gap + gap/4}), because only then has every node emitted every
 * slice that could still extend it. Finer slices would close sessions sooner at the price of more
 * Partials per session.
 */
public final class SessionSliceAssigner implements SliceAssigner {

  /** Slices per gap: sessions close at most gap/4 after {@code end + gap}. */
  public static final int SLICES_PER_GAP = 4;

  private final WindowShape.Session shape;
  private final long sliceMs;

  /**
   * @param gapMs the inactivity gap, > 0
   */
  public SessionSliceAssigner(long gapMs) {
    this.shape = new WindowShape.Session(gapMs);
    this.sliceMs = sliceMs(gapMs);
  }

  /** The slice length used for {@code gapMs}. */
  public static long sliceMs(long gapMs) {
    return Math.max(1, gapMs / SLICES_PER_GAP);
  }

  /**
   * The watermark at which a session whose last event is at {@code lastEventMs} is final: the first
   * multiple of {@code sliceMs} at or after {@code lastEventMs + gapMs}.
   */
  public static long closeBoundaryMs(long lastEventMs, long gapMs, long sliceMs) {
    long t = lastEventMs + gapMs;
    long r = Math.floorMod(t, sliceMs);
    return r == 0 ? t : t - r + sliceMs;
  }

  public long gapMs() {
    return shape.gapMs();
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

  /** The close boundary of a session ending in this slice. */
  @Override
  public long finalWatermarkMs(long sliceStartMs) {
    return closeBoundaryMs(sliceStartMs + sliceMs - 1, shape.gapMs(), sliceMs);
  }

  @Override
  public String toString() {
    return "SessionSliceAssigner[gapMs=" + shape.gapMs() + ", sliceMs=" + sliceMs + "]";
  }
}

package dev.skewer.coordinator;

/** Metric names of the coordinator, in one place. Tag: {@code coordinator}. */
public final class CoordinatorMetrics {
  public static final String PARTIALS_IN = "skewer.partials.in";
  public static final String PARTIALS_STALE = "skewer.partials.stale";
  public static final String PARTIALS_LATE = "skewer.partials.late";
  public static final String PARTIALS_INVALID = "skewer.partials.invalid";

  /** Times a node's message was found missing (a lost send): its watermarks wait for a replay. */
  public static final String PARTIALS_LOST = "skewer.partials.lost";

  public static final String RESULTS_OUT = "skewer.results.out";
  public static final String RESULT_REVISIONS = "skewer.results.revisions";
  public static final String HELD_PARTIALS = "skewer.coordinator.held.partials";
  public static final String WATERMARK_LAG = "skewer.coordinator.watermark.lag";

  private CoordinatorMetrics() {}
}

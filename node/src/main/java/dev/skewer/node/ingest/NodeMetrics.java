package dev.skewer.node.ingest;

/** Metric names of the node, in one place. Tags: {@code node}, and {@code reason} on the DLQ. */
public final class NodeMetrics {
  public static final String EVENTS_IN = "skewer.events.in";
  public static final String EVENTS_LATE = "skewer.events.late";
  public static final String EVENTS_DLQ = "skewer.events.dlq";
  public static final String PARTIALS_OUT = "skewer.partials.out";
  public static final String WATERMARKS_OUT = "skewer.watermarks.out";
  public static final String OPEN_KEY_SLICES = "skewer.node.open.key.slices";
  public static final String WATERMARK_LAG = "skewer.watermark.lag";
  public static final String SIDE_OUTPUTS_SKIPPED = "skewer.node.side.outputs.skipped";
  public static final String SIDE_OUTPUTS_TRUNCATED = "skewer.node.side.outputs.truncated";

  private NodeMetrics() {}
}

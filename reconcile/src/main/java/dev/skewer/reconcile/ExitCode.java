package dev.skewer.reconcile;

/** The exit codes of {@code skewer reconcile} (and {@code skewer results}). */
public final class ExitCode {

  /**
   * Every result equals the recomputation, every sketch is within bounds, every event is accounted
   * for.
   */
  public static final int MATCH = 0;

  /**
   * An exact field differs, a result is missing or unexpected, or an event is not accounted for.
   */
  public static final int DIFFERENCES = 1;

  /** Bad command line or job file: nothing was read. */
  public static final int USAGE = 2;

  /** Exact fields all match, but some sketch estimates lie outside their own error bars. */
  public static final int SKETCHES_OUTSIDE_BOUNDS = 3;

  /** The run could not finish: the broker, a topic, the disk (the message says which). */
  public static final int FAILURE = 4;

  private ExitCode() {}
}

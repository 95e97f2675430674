package dev.skewer.loadgen.reference;

import dev.skewer.sketches.Aggregate;
import dev.skewer.sketches.SketchSpec;
import java.util.Collections;
import java.util.Set;
import java.util.TreeSet;

/**
 * The exact ground truth of one (key, window): count, sum, min and max of the value, the reference
 * {@link Aggregate} built from the same events with the job's {@link SketchSpec}, and whether a
 * revision is expected.
 *
 * <p>Filled by {@link ExactReference}; read-only for everyone else. Not thread-safe.
 */
public final class ExactWindow {

  private final String key;
  private final long windowStartMs;
  private final long windowEndMs;
  private final Aggregate aggregate;
  private long count;
  private double sum;
  private double min = Double.POSITIVE_INFINITY;
  private double max = Double.NEGATIVE_INFINITY;
  private boolean revisionExpected;
  private final TreeSet<Integer> sourcePartitions = new TreeSet<>();

  ExactWindow(String key, long windowStartMs, long windowEndMs, SketchSpec spec) {
    this.key = key;
    this.windowStartMs = windowStartMs;
    this.windowEndMs = windowEndMs;
    this.aggregate = spec == null ? null : Aggregate.empty(spec);
  }

  void update(int partition, double value, double[] numeric, String user, boolean afterClose) {
    sourcePartitions.add(partition);
    count++;
    sum += value;
    min = Math.min(min, value);
    max = Math.max(max, value);
    if (afterClose) {
      revisionExpected = true;
    }
    if (aggregate != null) {
      aggregate.update(numeric, user, user, value);
    }
  }

  /** The source partitions whose events the window holds. */
  public Set<Integer> sourcePartitions() {
    return Collections.unmodifiableSet(sourcePartitions);
  }

  public String key() {
    return key;
  }

  public long windowStartMs() {
    return windowStartMs;
  }

  /** Exclusive end. */
  public long windowEndMs() {
    return windowEndMs;
  }

  public long count() {
    return count;
  }

  /** Sum of the values, added in send order. */
  public double sum() {
    return sum;
  }

  public double min() {
    return min;
  }

  public double max() {
    return max;
  }

  /**
   * The reference aggregate (the same events, the same spec: one HLL over the whole window), or
   * {@code null} if the reference was built without a spec. Do not modify it.
   */
  public Aggregate aggregate() {
    return aggregate;
  }

  /**
   * Whether an event within allowed lateness arrived after this window's end had passed its
   * partition's watermark, so the node re-emits its partial. The coordinator emits a revised result
   * if the window had also closed globally by then (the minimum over partitions).
   */
  public boolean revisionExpected() {
    return revisionExpected;
  }

  @Override
  public String toString() {
    return "ExactWindow["
        + key
        + "@"
        + windowStartMs
        + " count="
        + count
        + " sum="
        + sum
        + " min="
        + min
        + " max="
        + max
        + (revisionExpected ? " revision" : "")
        + "]";
  }
}

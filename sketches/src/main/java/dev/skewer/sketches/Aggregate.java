package dev.skewer.sketches;

import java.util.List;

/**
 * Mergeable aggregate state of one (key, window slice). CONTRACT STUB: bodies are filled in by
 * the sketches module; signatures are the contract.
 *
 * <p>Not thread-safe; single owner.
 */
public final class Aggregate {

  private Aggregate() {}

  /** An empty aggregate (the identity of {@link #merge}). */
  public static Aggregate empty(SketchSpec spec) {
    throw new UnsupportedOperationException("stub");
  }

  public SketchSpec spec() {
    throw new UnsupportedOperationException("stub");
  }

  /**
   * Folds in one event.
   *
   * @param numeric values of the numeric fields, {@code numeric.length == spec().numericFields()}
   *     (the array is not retained; NaN means "field absent in this event" and is skipped)
   * @param distinctItem item for the distinct count, or null (ignored if distinct is off)
   * @param frequentItem item for the heavy hitters, or null (ignored if frequencies are off)
   * @param quantileValue value for the quantiles, NaN if absent (ignored if quantiles are off)
   */
  public void update(double[] numeric, String distinctItem, String frequentItem, double quantileValue) {
    throw new UnsupportedOperationException("stub");
  }

  /** Folds {@code other} into this; throws IllegalArgumentException for a different spec. */
  public void merge(Aggregate other) {
    throw new UnsupportedOperationException("stub");
  }

  /** A deep copy. */
  public Aggregate copy() {
    throw new UnsupportedOperationException("stub");
  }

  public long count() {
    throw new UnsupportedOperationException("stub");
  }

  public double sum(int field) {
    throw new UnsupportedOperationException("stub");
  }

  /** +Infinity when no value was seen. */
  public double min(int field) {
    throw new UnsupportedOperationException("stub");
  }

  /** -Infinity when no value was seen. */
  public double max(int field) {
    throw new UnsupportedOperationException("stub");
  }

  /** The distinct-count estimate; IllegalStateException if the spec has no distinct sketch. */
  public DistinctEstimate distinct() {
    throw new UnsupportedOperationException("stub");
  }

  /** The q-quantile (0..1) estimate; IllegalStateException if the spec has no quantiles. */
  public QuantileEstimate quantile(double q) {
    throw new UnsupportedOperationException("stub");
  }

  /** Up to n heaviest items, heaviest first; IllegalStateException if frequencies are off. */
  public List<HeavyHitter> heavyHitters(int n) {
    throw new UnsupportedOperationException("stub");
  }

  /** Approximate heap footprint of this aggregate in bytes (for memory reporting). */
  public long heapBytes() {
    throw new UnsupportedOperationException("stub");
  }
}

package dev.skewer.core.event;

import dev.skewer.core.job.JobSpec;
import java.util.Arrays;

/**
 * The fields of one event the aggregation needs. A reusable, <b>mutable</b> holder: each consumer
 * owns one and {@link EventDecoder#decode} refills it per record.
 *
 * <p>Not a record, deliberately: the node decodes hundreds of thousands of events per second and a
 * fresh object (and two arrays) per event would be garbage on the hottest path. Copy what you keep;
 * the holder's content is valid only until the next {@code decode}. Not thread-safe.
 */
public final class DecodedEvent {

  private String key;
  private long eventTimeMs;
  private final double[] numeric;
  private String distinctItem;
  private String frequencyItem;
  private double quantileValue;
  private final String[] dimensions;

  /** A holder sized for {@code numericFields} numeric values and {@code dimensions} dimensions. */
  public DecodedEvent(int numericFields, int dimensions) {
    this.numeric = new double[numericFields];
    this.dimensions = new String[dimensions];
    clear();
  }

  /** A holder sized for {@code job}. */
  public static DecodedEvent forJob(JobSpec job) {
    return new DecodedEvent(job.input().numericFields().size(), job.input().dimensions().size());
  }

  /** Resets every field to "absent". */
  public void clear() {
    key = null;
    eventTimeMs = Long.MIN_VALUE;
    Arrays.fill(numeric, Double.NaN);
    distinctItem = null;
    frequencyItem = null;
    quantileValue = Double.NaN;
    Arrays.fill(dimensions, null);
  }

  /** The key as found in the event: what results are grouped by. */
  public String key() {
    return key;
  }

  public long eventTimeMs() {
    return eventTimeMs;
  }

  /**
   * Values of the numeric fields in {@code input.numericFields} order; NaN where absent. The array
   * is owned by this holder: read it, don't keep it.
   */
  public double[] numeric() {
    return numeric;
  }

  /** The distinct-count item, or null. */
  public String distinctItem() {
    return distinctItem;
  }

  /** The heavy-hitter item, or null. */
  public String frequencyItem() {
    return frequencyItem;
  }

  /** The quantile value, NaN if absent. */
  public double quantileValue() {
    return quantileValue;
  }

  /** Values of the dimensions in {@code input.dimensions} order; null where absent. Owned. */
  public String[] dimensions() {
    return dimensions;
  }

  public DecodedEvent setKey(String key) {
    this.key = key;
    return this;
  }

  public DecodedEvent setEventTimeMs(long eventTimeMs) {
    this.eventTimeMs = eventTimeMs;
    return this;
  }

  public DecodedEvent setNumeric(int field, double value) {
    numeric[field] = value;
    return this;
  }

  public DecodedEvent setDistinctItem(String item) {
    this.distinctItem = item;
    return this;
  }

  public DecodedEvent setFrequencyItem(String item) {
    this.frequencyItem = item;
    return this;
  }

  public DecodedEvent setQuantileValue(double value) {
    this.quantileValue = value;
    return this;
  }

  public DecodedEvent setDimension(int index, String value) {
    dimensions[index] = value;
    return this;
  }

  @Override
  public String toString() {
    return "DecodedEvent[key="
        + key
        + ", eventTimeMs="
        + eventTimeMs
        + ", numeric="
        + Arrays.toString(numeric)
        + ", distinctItem="
        + distinctItem
        + ", frequencyItem="
        + frequencyItem
        + ", quantileValue="
        + quantileValue
        + ", dimensions="
        + Arrays.toString(dimensions)
        + "]";
  }
}

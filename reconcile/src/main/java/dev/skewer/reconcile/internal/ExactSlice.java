package dev.skewer.reconcile.internal;

import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The exact counterparts of one (key, slice)'s sketches: the set of distinct items, every quantile
 * value, and the count of every frequency item — only those the job asks for. Results union the
 * slices they cover. Not thread-safe.
 */
public final class ExactSlice {

  private final Set<String> distinct;
  private double[] values;
  private int valueCount;
  private final Map<String, long[]> frequencies;

  /** An empty slice tracking what is switched on. */
  public ExactSlice(boolean distinct, boolean quantiles, boolean frequencies) {
    this.distinct = distinct ? new HashSet<>() : null;
    this.values = quantiles ? new double[4] : null;
    this.frequencies = frequencies ? new HashMap<>() : null;
  }

  /** Folds in one event's items; null items and a NaN value are absent (as in the aggregate). */
  public void update(String distinctItem, String frequencyItem, double quantileValue) {
    if (distinct != null && distinctItem != null) {
      distinct.add(distinctItem);
    }
    if (values != null && !Double.isNaN(quantileValue)) {
      if (valueCount == values.length) {
        values = Arrays.copyOf(values, values.length * 2);
      }
      values[valueCount++] = quantileValue;
    }
    if (frequencies != null && frequencyItem != null) {
      frequencies.computeIfAbsent(frequencyItem, k -> new long[1])[0]++;
    }
  }

  /**
   * Approximate heap bytes: 56 per distinct item or frequency entry plus the characters, 8 per
   * value.
   */
  public long heapBytes() {
    long bytes = 48;
    if (distinct != null) {
      for (String s : distinct) {
        bytes += 56 + 2L * s.length();
      }
    }
    if (values != null) {
      bytes += 16 + 8L * values.length;
    }
    if (frequencies != null) {
      for (String s : frequencies.keySet()) {
        bytes += 72 + 2L * s.length();
      }
    }
    return bytes;
  }

  /** The exact distinct count of the union of {@code slices}. */
  public static long distinctCount(Collection<ExactSlice> slices) {
    if (slices.size() == 1) {
      return slices.iterator().next().distinct.size();
    }
    Set<String> union = new HashSet<>();
    for (ExactSlice s : slices) {
      union.addAll(s.distinct);
    }
    return union.size();
  }

  /** Every quantile value of {@code slices}, sorted. */
  public static double[] sortedValues(Collection<ExactSlice> slices) {
    int n = 0;
    for (ExactSlice s : slices) {
      n += s.valueCount;
    }
    double[] all = new double[n];
    int i = 0;
    for (ExactSlice s : slices) {
      System.arraycopy(s.values, 0, all, i, s.valueCount);
      i += s.valueCount;
    }
    Arrays.sort(all);
    return all;
  }

  /** The exact count of {@code item} in {@code slices}. */
  public static long frequency(Collection<ExactSlice> slices, String item) {
    long c = 0;
    for (ExactSlice s : slices) {
      long[] f = s.frequencies.get(item);
      if (f != null) {
        c += f[0];
      }
    }
    return c;
  }
}

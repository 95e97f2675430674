package dev.skewer.benchmarks.deployed;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Medians and ranges of a few runs, and the machine's load average beside them. */
public final class Stats {

  private Stats() {}

  public static double median(List<Double> xs) {
    if (xs.isEmpty()) {
      return Double.NaN;
    }
    List<Double> s = new ArrayList<>(xs);
    Collections.sort(s);
    int n = s.size();
    return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
  }

  /** {@code median [min–max]} with {@code format} for each number (e.g. {@code %,.0f}). */
  public static String medianRange(List<Double> xs, String format) {
    if (xs.isEmpty()) {
      return "-";
    }
    return String.format(format, median(xs))
        + " ["
        + String.format(format, Collections.min(xs))
        + "–"
        + String.format(format, Collections.max(xs))
        + "]";
  }

  /** The 1-minute load average ({@code /proc/loadavg}); NaN where unreadable. */
  public static double loadAverage() {
    try {
      String s = Files.readString(Path.of("/proc/loadavg"));
      return Double.parseDouble(s.substring(0, s.indexOf(' ')));
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }
}

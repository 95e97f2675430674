package dev.skewer.benchmarks.deployed;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Samples read from a Prometheus text exposition (what a Skewer process serves on {@code
 * /metrics}): {@code name{label="value",...} number [timestamp]} per line, comments skipped.
 *
 * <p>Label values may hold escaped quotes, backslashes and newlines ({@code \"}, {@code \\}, {@code
 * \n}); a line that is not a sample is skipped, never thrown on.
 */
final class PrometheusText {

  /** One sample line. */
  record Sample(String name, Map<String, String> labels, double value) {}

  private PrometheusText() {}

  /** Every sample of {@code exposition}, in order. */
  static List<Sample> parse(String exposition) {
    List<Sample> samples = new ArrayList<>();
    for (String line : exposition.split("\n")) {
      Sample s = parseLine(line.strip());
      if (s != null) {
        samples.add(s);
      }
    }
    return samples;
  }

  /**
   * The value of {@code name} per value of its label {@code label}, summed over the other labels
   * (samples without the label are left out).
   */
  static Map<String, Double> byLabel(String exposition, String name, String label) {
    Map<String, Double> values = new TreeMap<>();
    for (Sample s : parse(exposition)) {
      String v = s.labels().get(label);
      if (s.name().equals(name) && v != null) {
        values.merge(v, s.value(), Double::sum);
      }
    }
    return values;
  }

  /** The sum of every sample of {@code name}, whatever its labels; 0 when there is none. */
  static double sum(String exposition, String name) {
    double sum = 0;
    for (Sample s : parse(exposition)) {
      if (s.name().equals(name)) {
        sum += s.value();
      }
    }
    return sum;
  }

  private static Sample parseLine(String line) {
    if (line.isEmpty() || line.startsWith("#")) {
      return null;
    }
    int i = 0;
    while (i < line.length() && isNameChar(line.charAt(i))) {
      i++;
    }
    if (i == 0) {
      return null;
    }
    String name = line.substring(0, i);
    Map<String, String> labels = new LinkedHashMap<>();
    if (i < line.length() && line.charAt(i) == '{') {
      i = parseLabels(line, i + 1, labels);
      if (i < 0) {
        return null;
      }
    }
    String[] rest = line.substring(i).strip().split("\\s+");
    if (rest.length == 0 || rest[0].isEmpty()) {
      return null;
    }
    Double value = number(rest[0]);
    return value == null ? null : new Sample(name, Map.copyOf(labels), value);
  }

  /** Parses {@code a="x",b="y"}} from {@code i}; returns the index after '}' or -1. */
  private static int parseLabels(String line, int i, Map<String, String> labels) {
    while (i < line.length()) {
      char c = line.charAt(i);
      if (c == '}') {
        return i + 1;
      }
      if (c == ',' || c == ' ') {
        i++;
        continue;
      }
      int eq = line.indexOf('=', i);
      if (eq < 0 || eq + 1 >= line.length() || line.charAt(eq + 1) != '"') {
        return -1;
      }
      String key = line.substring(i, eq).strip();
      StringBuilder value = new StringBuilder();
      int j = eq + 2;
      boolean closed = false;
      while (j < line.length()) {
        char v = line.charAt(j);
        if (v == '\\' && j + 1 < line.length()) {
          char e = line.charAt(j + 1);
          value.append(e == 'n' ? '\n' : e);
          j += 2;
        } else if (v == '"') {
          closed = true;
          j++;
          break;
        } else {
          value.append(v);
          j++;
        }
      }
      if (!closed) {
        return -1;
      }
      labels.put(key, value.toString());
      i = j;
    }
    return -1;
  }

  private static boolean isNameChar(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == ':';
  }

  private static Double number(String s) {
    switch (s) {
      case "+Inf":
        return Double.POSITIVE_INFINITY;
      case "-Inf":
        return Double.NEGATIVE_INFINITY;
      case "NaN":
        return Double.NaN;
      default:
        try {
          return Double.parseDouble(s);
        } catch (NumberFormatException e) {
          return null;
        }
    }
  }
}

package dev.skewer.sketches;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Test streams: events with integer-valued numerics (so sums are exact), skewed items. */
final class Events {
  record Event(double[] numeric, String distinctItem, String frequentItem, double quantileValue) {
    void applyTo(Aggregate a) {
      a.update(numeric, distinctItem, frequentItem, quantileValue);
    }
  }

  private Events() {}

  /**
   * A reproducible stream: numeric values are integers in [-1000, 1000] or NaN (absent); items are
   * drawn from alphabets of the given sizes with a skew (squared uniform), so that both exact and
   * sketch modes occur.
   */
  static List<Event> stream(
      long seed, int length, SketchSpec spec, int distinctAlphabet, int itemAlphabet) {
    Random r = new Random(seed);
    List<Event> events = new ArrayList<>(length);
    for (int i = 0; i < length; i++) {
      double[] numeric = new double[spec.numericFields()];
      for (int f = 0; f < numeric.length; f++) {
        numeric[f] = r.nextInt(5) == 0 ? Double.NaN : r.nextInt(2001) - 1000;
      }
      String distinct = r.nextInt(10) == 0 ? null : "u" + r.nextInt(distinctAlphabet);
      double u = r.nextDouble();
      String item = r.nextInt(10) == 0 ? null : "i" + (int) (u * u * itemAlphabet);
      double q = r.nextInt(8) == 0 ? Double.NaN : Math.exp(r.nextGaussian());
      events.add(new Event(numeric, distinct, item, q));
    }
    return events;
  }

  static Aggregate aggregate(SketchSpec spec, List<Event> events) {
    Aggregate a = Aggregate.empty(spec);
    for (Event e : events) {
      e.applyTo(a);
    }
    return a;
  }

  /** The spec every sketch on, small enough for fast property tests. */
  static SketchSpec smallSpec(int numericFields, int capacity) {
    return SketchSpec.countsOnly(numericFields)
        .withDistinct(8, 20)
        .withFrequencies(0.02, 0.05, capacity)
        .withQuantiles(20);
  }
}

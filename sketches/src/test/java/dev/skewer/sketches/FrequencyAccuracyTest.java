package dev.skewer.sketches;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Count-Min Sketch and candidates against exact counts on Zipf-distributed items: no estimate is
 * below the truth, at least 1&minus;&delta; of point queries are within &epsilon;N, and every item
 * with frequency &ge; 2&epsilon;N is among the heavy hitters (the candidate guarantee's
 * precondition, fewer than {@code capacity} items with frequency &ge; &epsilon;N, is asserted), on
 * one stream and after merging 8 random parts.
 */
class FrequencyAccuracyTest {

  @ParameterizedTest(name = "eps={0} delta={1} capacity={2} zipf s={3} seed={4}")
  @CsvSource({
    "0.001, 0.01, 128, 1.1, 1",
    "0.001, 0.01, 128, 1.3, 2",
    "0.01, 0.05, 32, 0.9, 3",
    "0.005, 0.01, 64, 1.3, 4"
  })
  void shouldBoundOverestimatesAndRecoverHeavyHittersWhenItemsAreZipfDistributed(
      double epsilon, double delta, int capacity, double s, long seed) {
    // given
    int n = 200_000;
    int universe = 50_000;
    SketchSpec spec = SketchSpec.countsOnly(0).withFrequencies(epsilon, delta, capacity);
    Random r = new Random(seed);
    double[] cdf = zipfCdf(universe, s);
    Aggregate whole = Aggregate.empty(spec);
    Aggregate[] parts = new Aggregate[8];
    for (int p = 0; p < parts.length; p++) {
      parts[p] = Aggregate.empty(spec);
    }
    Map<String, Long> exact = new HashMap<>();
    for (int i = 0; i < n; i++) {
      String item = "item-" + sample(cdf, r.nextDouble());
      exact.merge(item, 1L, Long::sum);
      whole.update(null, null, item, Double.NaN);
      parts[r.nextInt(parts.length)].update(null, null, item, Double.NaN);
    }
    Aggregate merged = Aggregate.empty(spec);
    for (Aggregate part : parts) {
      merged.merge(part);
    }
    long bound = (long) Math.ceil(epsilon * n);
    long heavyAtEps = exact.values().stream().filter(c -> c >= epsilon * n).count();
    assertThat(heavyAtEps).as("precondition: items with frequency >= eps N").isLessThan(capacity);

    for (Aggregate a : new Aggregate[] {whole, merged}) {
      // then: point queries
      int beyond = 0;
      for (Map.Entry<String, Long> e : exact.entrySet()) {
        HeavyHitter h = a.frequency(e.getKey());
        assertThat(h.estimate())
            .as("never under-estimates %s", e.getKey())
            .isGreaterThanOrEqualTo(e.getValue());
        assertThat(h.maxOverestimate()).isEqualTo(bound);
        if (h.estimate() - e.getValue() > bound) {
          beyond++;
        }
      }
      assertThat((double) beyond / exact.size())
          .as("share beyond eps N")
          .isLessThanOrEqualTo(delta);

      // and heavy hitters
      Set<String> reported = new HashSet<>();
      a.heavyHitters(capacity).forEach(h -> reported.add(h.item()));
      for (Map.Entry<String, Long> e : exact.entrySet()) {
        if (e.getValue() >= 2 * epsilon * n) {
          assertThat(reported)
              .as("heavy item %s (%s)", e.getKey(), e.getValue())
              .contains(e.getKey());
        }
      }
    }
  }

  private static double[] zipfCdf(int universe, double s) {
    double[] cdf = new double[universe];
    double total = 0;
    for (int k = 1; k <= universe; k++) {
      total += 1 / Math.pow(k, s);
      cdf[k - 1] = total;
    }
    for (int k = 0; k < universe; k++) {
      cdf[k] /= total;
    }
    return cdf;
  }

  private static int sample(double[] cdf, double u) {
    int i = Arrays.binarySearch(cdf, u);
    return i >= 0 ? i : Math.min(cdf.length - 1, -i - 1);
  }
}

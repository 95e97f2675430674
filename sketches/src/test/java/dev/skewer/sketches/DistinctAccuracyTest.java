package dev.skewer.sketches;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * HLL++ (p 14, p' 25) against exact distinct counts over many seeds: the mean absolute relative
 * error stays within 1.2 &times; the reported relative standard error and no trial is beyond 4 of
 * them.
 */
class DistinctAccuracyTest {

  @ParameterizedTest(name = "{0} distinct values, {1} seeds")
  @CsvSource({"1000, 60", "100000, 16", "1000000, 6"})
  void shouldStayWithinPublishedErrorWhenCountingDistinctValues(int distinct, int seeds) {
    SketchSpec spec = SketchSpec.countsOnly(0).withDistinct();
    double sumAbsError = 0;
    double worst = 0;
    double sigma = 0;
    for (int seed = 0; seed < seeds; seed++) {
      Aggregate a = Aggregate.empty(spec);
      String prefix = "s" + seed + "-";
      for (int i = 0; i < distinct; i++) {
        a.update(null, prefix + i, null, Double.NaN);
        if ((i & 7) == 0) {
          a.update(null, prefix + (i / 2), null, Double.NaN); // repeats must not count
        }
      }
      DistinctEstimate e = a.distinct();
      sigma = e.relativeStandardError();
      double relError = Math.abs((double) e.estimate() - distinct) / distinct;
      sumAbsError += relError;
      worst = Math.max(worst, relError);
    }
    assertThat(sigma).isEqualTo(1.04 / Math.sqrt(1 << 14));
    assertThat(sumAbsError / seeds).as("mean |relative error|").isLessThanOrEqualTo(1.2 * sigma);
    assertThat(worst).as("worst relative error").isLessThanOrEqualTo(4 * sigma);
  }
}

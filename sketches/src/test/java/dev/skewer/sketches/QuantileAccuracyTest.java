package dev.skewer.sketches;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * t-digest (compression 100) on 1M log-normal values against exact ranks: rank error &le; 0.005 at
 * p50 and &le; 0.001 at p99 and p99.9, and never beyond the rank error the estimate reports; also
 * after merging 16 parts.
 */
class QuantileAccuracyTest {
  private static final int N = 1_000_000;
  private static final double[] QS = {0.5, 0.99, 0.999};
  private static final double[] LIMITS = {0.005, 0.001, 0.001};

  @Test
  void shouldMeetRankErrorTargetsWhenSummarisingOneMillionLogNormalValues() {
    for (int seed = 0; seed < 3; seed++) {
      // given
      Random r = new Random(seed);
      double[] values = new double[N];
      Aggregate a = Aggregate.empty(SketchSpec.countsOnly(0).withQuantiles());
      for (int i = 0; i < N; i++) {
        values[i] = Math.exp(r.nextGaussian());
        a.update(null, null, null, values[i]);
      }
      Arrays.sort(values);

      // then
      assertRankErrors(a, values, "seed " + seed);
    }
  }

  @Test
  void shouldMeetRankErrorTargetsWhenSixteenPartsAreMergedInOrder() {
    Random r = new Random(99);
    double[] values = new double[N];
    SketchSpec spec = SketchSpec.countsOnly(0).withQuantiles();
    Aggregate[] parts = new Aggregate[16];
    for (int p = 0; p < parts.length; p++) {
      parts[p] = Aggregate.empty(spec);
    }
    for (int i = 0; i < N; i++) {
      values[i] = Math.exp(r.nextGaussian());
      parts[r.nextInt(parts.length)].update(null, null, null, values[i]);
    }
    Aggregate merged = Aggregate.empty(spec);
    for (Aggregate part : parts) {
      merged.merge(AggregateCodec.decode(AggregateCodec.encode(part))); // as a coordinator does
    }
    Arrays.sort(values);
    assertRankErrors(merged, values, "16 parts");
  }

  private static void assertRankErrors(Aggregate a, double[] sorted, String what) {
    for (int k = 0; k < QS.length; k++) {
      QuantileEstimate e = a.quantile(QS[k]);
      double rank = rank(sorted, e.value());
      double error = Math.abs(rank - QS[k]);
      assertThat(error).as("%s rank error at q=%s", what, QS[k]).isLessThanOrEqualTo(LIMITS[k]);
      assertThat(error)
          .as("%s reported bound at q=%s", what, QS[k])
          .isLessThanOrEqualTo(e.rankError());
    }
  }

  private static double rank(double[] sorted, double v) {
    int lo = lowerBound(sorted, v);
    int hi = lowerBound(sorted, Math.nextUp(v));
    return (lo + hi) / 2.0 / sorted.length;
  }

  private static int lowerBound(double[] sorted, double v) {
    int i = Arrays.binarySearch(sorted, v);
    if (i < 0) {
      return -i - 1;
    }
    while (i > 0 && sorted[i - 1] == v) {
      i--;
    }
    return i;
  }
}

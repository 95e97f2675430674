package dev.skewer.coordinator.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LatenessHistogramTest {

  @Test
  void shouldAnswerAnUpperBoundWithin1Point6PercentOfTheExactQuantileOverManySeeds() {
    for (int seed = 0; seed < 200; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      int n = 1 + random.nextInt(5_000);
      long[] values = new long[n];
      LatenessHistogram h = new LatenessHistogram();
      for (int i = 0; i < n; i++) {
        // heavy-tailed: most a few ms to seconds late, some minutes or hours
        values[i] = (long) Math.exp(random.nextDouble() * Math.log(10_000_000));
        h.record(values[i]);
      }
      Arrays.sort(values);
      for (double q : new double[] {0.5, 0.9, 0.99, 0.999, 1.0}) {
        long exact = values[(int) Math.ceil(q * n - 1e-9) - 1];
        long answer = h.valueAtQuantile(q);
        assertThat(answer).as("seed %d q %s", seed, q).isGreaterThanOrEqualTo(exact);
        assertThat((double) answer)
            .as("seed %d q %s", seed, q)
            .isLessThanOrEqualTo(exact * (1 + 1 / 64.0));
        // the answer keeps at least q of the values
        long kept = Arrays.stream(values).filter(v -> v <= answer).count();
        assertThat(kept).isGreaterThanOrEqualTo((long) Math.ceil(q * n - 1e-9));
      }
      assertThat(h.max()).isEqualTo(values[n - 1]);
      assertThat(h.total()).isEqualTo(n);
    }
  }

  @Test
  void shouldKeepBucketBoundsContiguousAndOrdered() {
    long previousUpper = -1;
    for (int i = 0; i < 3_712; i++) {
      assertThat(LatenessHistogram.lowerBound(i)).isEqualTo(previousUpper + 1);
      assertThat(LatenessHistogram.upperBound(i))
          .isGreaterThanOrEqualTo(LatenessHistogram.lowerBound(i));
      assertThat(LatenessHistogram.index(LatenessHistogram.lowerBound(i))).isEqualTo(i);
      assertThat(LatenessHistogram.index(LatenessHistogram.upperBound(i))).isEqualTo(i);
      previousUpper = LatenessHistogram.upperBound(i);
    }
    assertThat(previousUpper).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void shouldAnswerMinusOneWhenEmptyAndRefuseABadQuantile() {
    LatenessHistogram h = new LatenessHistogram();
    assertThat(h.valueAtQuantile(0.99)).isEqualTo(-1);
    assertThat(h.max()).isEqualTo(-1);
    assertThatThrownBy(() -> h.valueAtQuantile(0)).hasMessageContaining("quantile");
    assertThatThrownBy(() -> h.valueAtQuantile(1.5)).hasMessageContaining("quantile");
  }
}

package dev.skewer.loadgen.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Offset.offset;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ZipfSamplerTest {

  @Test
  void shouldFollowZipfLawWhenSampledManyTimes() {
    // given
    int n = 200;
    ZipfSampler zipf = new ZipfSampler(n, 1.1);
    SplittableRandom random = new SplittableRandom(42);
    int samples = 400_000;

    // when
    long[] counts = new long[n];
    for (int i = 0; i < samples; i++) {
      counts[zipf.sample(random)]++;
    }

    // then: chi-square over all ranks, df = n - 1; critical value at p = 0.001 is ~ 267
    double chiSquare = 0;
    for (int k = 0; k < n; k++) {
      double expected = samples * zipf.probability(k);
      chiSquare += (counts[k] - expected) * (counts[k] - expected) / expected;
    }
    assertThat(chiSquare).isLessThan(267);
    // and the head, rank by rank, within 4 standard deviations
    for (int k = 0; k < 10; k++) {
      double p = zipf.probability(k);
      double sd = Math.sqrt(samples * p * (1 - p));
      assertThat((double) counts[k]).isCloseTo(samples * p, offset(4 * sd));
    }
  }

  @Test
  void shouldHaveExactProbabilitiesWhenComputed() {
    ZipfSampler zipf = new ZipfSampler(3, 1.0);
    double total = 1 + 0.5 + 1.0 / 3;
    assertThat(zipf.probability(0)).isCloseTo(1 / total, offset(1e-12));
    assertThat(zipf.probability(2)).isCloseTo((1.0 / 3) / total, offset(1e-12));
    assertThat(new ZipfSampler(4, 0).probability(3)).isCloseTo(0.25, offset(1e-12));
  }

  @Test
  void shouldStayInRangeWhenSingleRank() {
    ZipfSampler zipf = new ZipfSampler(1, 2.0);
    SplittableRandom random = new SplittableRandom(1);
    for (int i = 0; i < 100; i++) {
      assertThat(zipf.sample(random)).isZero();
    }
  }

  @Test
  void shouldRejectInvalidParameters() {
    assertThatThrownBy(() -> new ZipfSampler(0, 1.0)).hasMessageContaining("n must be");
    assertThatThrownBy(() -> new ZipfSampler(10, -1)).hasMessageContaining("s must be");
    assertThatThrownBy(() -> new ZipfSampler(10, Double.NaN)).hasMessageContaining("s must be");
  }
}

package dev.skewer.sketches;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class AggregateTest {

  @Test
  void shouldSkipNaNWhenFoldingNumericFields() {
    Aggregate a = Aggregate.empty(SketchSpec.countsOnly(2));
    a.update(new double[] {1, Double.NaN}, null, null, Double.NaN);
    a.update(new double[] {3, Double.NaN}, null, null, Double.NaN);
    assertThat(a.count()).isEqualTo(2);
    assertThat(a.valueCount(0)).isEqualTo(2);
    assertThat(a.sum(0)).isEqualTo(4);
    assertThat(a.min(0)).isEqualTo(1);
    assertThat(a.max(0)).isEqualTo(3);
    assertThat(a.valueCount(1)).isZero();
    assertThat(a.sum(1)).isZero();
    assertThat(a.min(1)).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(a.max(1)).isEqualTo(Double.NEGATIVE_INFINITY);
  }

  @Test
  void shouldRefuseInfiniteValuesWithoutChangingStateWhenUpdated() {
    Aggregate a = Aggregate.empty(SketchSpec.countsOnly(1).withQuantiles());
    assertThatThrownBy(() -> a.update(new double[] {Double.POSITIVE_INFINITY}, null, null, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("numeric[0] must be finite or NaN, was Infinity");
    assertThatThrownBy(() -> a.update(new double[] {1}, null, null, Double.NEGATIVE_INFINITY))
        .hasMessage("quantileValue must be finite or NaN, was -Infinity");
    assertThatThrownBy(() -> a.update(new double[] {1, 2}, null, null, 1))
        .hasMessage("numeric must have 1 values, had 2");
    assertThat(a.count()).isZero();
    assertThat(a.quantileCount()).isZero();
  }

  @Test
  void shouldRefuseLoneSurrogatesWhenItemsAreStored() {
    Aggregate a = Aggregate.empty(SketchSpec.countsOnly(0).withFrequencies());
    assertThatThrownBy(() -> a.update(null, null, "bad\uD800", Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lone surrogate");
    a.update(null, null, "ok\uD83D\uDE00", Double.NaN);
    assertThat(
            AggregateCodec.decode(AggregateCodec.encode(a)).frequency("ok\uD83D\uDE00").estimate())
        .isEqualTo(1);
  }

  @Test
  void shouldRefuseMergeWhenSpecsDiffer() {
    Aggregate a = Aggregate.empty(SketchSpec.countsOnly(1).withDistinct(12, 25));
    Aggregate b = Aggregate.empty(SketchSpec.countsOnly(1).withDistinct(14, 25));
    assertThatThrownBy(() -> a.merge(b))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "cannot merge aggregates with different specs (this/other): hllPrecision=12/14");
  }

  @Test
  void shouldThrowIllegalStateWhenReadingASketchTheSpecLacks() {
    Aggregate a = Aggregate.empty(SketchSpec.countsOnly(0));
    assertThatThrownBy(a::distinct).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> a.quantile(0.5)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> a.heavyHitters(3)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void shouldAnswerExactlyWhenFewValuesAndItemsWereSeen() {
    Aggregate a = Aggregate.empty(SketchSpec.countsOnly(0).withFrequencies().withQuantiles());
    for (int v = 1; v <= 100; v++) {
      a.update(null, null, v % 10 == 0 ? "hot" : "cold" + v % 3, v);
    }
    assertThat(a.quantile(0.5)).isEqualTo(new QuantileEstimate(0.5, 50, 0));
    assertThat(a.quantile(0)).isEqualTo(new QuantileEstimate(0, 1, 0));
    assertThat(a.quantile(1)).isEqualTo(new QuantileEstimate(1, 100, 0));
    assertThat(a.heavyHitters(2))
        .isEqualTo(
            List.of(
                new HeavyHitter("cold0", 30, 0), new HeavyHitter("cold1", 30, 0))); // ties by item
    assertThat(a.frequency("hot")).isEqualTo(new HeavyHitter("hot", 10, 0));
    assertThat(a.frequency("never")).isEqualTo(new HeavyHitter("never", 0, 0));
  }

  @Test
  void shouldSwitchToSketchesWithBoundsWhenThresholdsArePassed() {
    Aggregate a =
        Aggregate.empty(SketchSpec.countsOnly(0).withFrequencies(0.01, 0.01, 4).withQuantiles());
    for (int v = 1; v <= 1000; v++) {
      a.update(null, null, "i" + v % 7, v);
    }
    assertThat(a.frequency("i1").maxOverestimate()).isEqualTo(10); // ceil(0.01 * 1000)
    assertThat(a.heavyHitters(10)).hasSize(4);
    QuantileEstimate p50 = a.quantile(0.5);
    assertThat(p50.rankError()).isGreaterThan(0);
    assertThat(p50.value())
        .isBetween(500.0 - 1000 * p50.rankError(), 500.0 + 1000 * p50.rankError());
  }

  @Test
  void shouldKeepSmallHeapFootprintWhenAKeySeesOneEvent() {
    Aggregate a =
        Aggregate.empty(SketchSpec.countsOnly(2).withDistinct().withFrequencies().withQuantiles());
    a.update(new double[] {1, 2}, "user", "item", 1.5);
    assertThat(a.heapBytes()).isLessThan(2_000);
  }

  @Test
  void shouldEqualItselfDoubledWhenMergedWithItself() {
    Aggregate a = Aggregate.empty(SketchSpec.countsOnly(1));
    a.update(new double[] {2}, null, null, Double.NaN);
    a.merge(a);
    assertThat(a.count()).isEqualTo(2);
    assertThat(a.sum(0)).isEqualTo(4);
  }

  @Test
  void shouldGiveEachQuantileAsAloneWhenSeveralAreAskedTogether() {
    double[] qs = {0.99, 0.5, 0.0, 1.0, 0.999, 0.5};
    for (int seed = 0; seed < 40; seed++) {
      Random r = new Random(seed);
      // exact (<= 128 values), digest with pending raw values, digest merged from others
      int n = new int[] {0, 1, 50, 128, 129, 700, 5_000}[seed % 7];
      Aggregate a = Aggregate.empty(SketchSpec.countsOnly(0).withQuantiles());
      for (int i = 0; i < n; i++) {
        a.update(null, null, null, Math.exp(r.nextGaussian()));
      }
      if (seed % 3 == 0) {
        Aggregate other = Aggregate.empty(SketchSpec.countsOnly(0).withQuantiles());
        for (int i = 0; i < 600 + r.nextInt(900); i++) {
          other.update(null, null, null, r.nextDouble() * 10);
        }
        a.merge(other);
      }

      QuantileEstimate[] together = a.quantiles(qs);

      assertThat(together).hasSize(qs.length);
      for (int i = 0; i < qs.length; i++) {
        // a.quantile(q) builds its own digest: asking several must not change any answer
        assertThat(together[i]).as("seed %d, q=%s", seed, qs[i]).isEqualTo(a.quantile(qs[i]));
      }
    }
    assertThatThrownBy(
            () ->
                Aggregate.empty(SketchSpec.countsOnly(0).withQuantiles())
                    .quantiles(new double[] {0.5, 1.5}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1.5");
  }
}

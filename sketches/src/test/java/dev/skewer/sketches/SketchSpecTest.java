package dev.skewer.sketches;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class SketchSpecTest {
  private static final SketchSpec BASE = SketchSpec.countsOnly(1);

  @Test
  void shouldNameFieldAndValueWhenSpecIsInvalid() {
    assertInvalid(() -> SketchSpec.countsOnly(65), "numericFields must be in [0, 64], was 65");
    assertInvalid(() -> SketchSpec.countsOnly(-1), "numericFields must be in [0, 64], was -1");
    assertInvalid(() -> BASE.withDistinct(3, 25), "hllPrecision must be in [4, 18], was 3");
    assertInvalid(() -> BASE.withDistinct(19, 25), "hllPrecision must be in [4, 18], was 19");
    assertInvalid(
        () -> BASE.withDistinct(14, 26),
        "hllSparsePrecision must be in [hllPrecision=14, 25], was 26");
    assertInvalid(
        () -> BASE.withDistinct(14, 13),
        "hllSparsePrecision must be in [hllPrecision=14, 25], was 13");
    assertInvalid(
        () -> BASE.withFrequencies(0, 0.01, 64), "cmsEpsilon must be in [1.0E-5, 1), was 0.0");
    assertInvalid(
        () -> BASE.withFrequencies(1, 0.01, 64), "cmsEpsilon must be in [1.0E-5, 1), was 1.0");
    assertInvalid(
        () -> BASE.withFrequencies(Double.NaN, 0.01, 64),
        "cmsEpsilon must be in [1.0E-5, 1), was NaN");
    assertInvalid(
        () -> BASE.withFrequencies(0.01, 1, 64), "cmsDelta must be in [1.0E-9, 1), was 1.0");
    assertInvalid(
        () -> BASE.withFrequencies(0.01, 0.01, 0),
        "heavyHitterCapacity must be in [1, 10000], was 0");
    assertInvalid(
        () -> BASE.withQuantiles(9), "tdigestCompression must be in [10.0, 1000.0], was 9.0");
    assertInvalid(
        () -> BASE.withQuantiles(Double.POSITIVE_INFINITY),
        "tdigestCompression must be in [10.0, 1000.0], was Infinity");
  }

  @Test
  void shouldUseDefaultsWhenBuiltFromFactories() {
    SketchSpec spec = SketchSpec.countsOnly(2).withDistinct().withFrequencies().withQuantiles();
    assertThat(spec.hllPrecision()).isEqualTo(14);
    assertThat(spec.hllSparsePrecision()).isEqualTo(25);
    assertThat(spec.cmsEpsilon()).isEqualTo(0.001);
    assertThat(spec.heavyHitterCapacity()).isEqualTo(64);
    assertThat(spec.tdigestCompression()).isEqualTo(100);
    assertThat(spec.describeDifference(spec)).isEmpty();
  }

  @Test
  void shouldBeEqualExactlyWhenEveryComponentIsEqual() {
    SketchSpec full = new SketchSpec(2, true, 14, 25, true, 0.001, 0.01, 64, true, 100);
    SketchSpec same = new SketchSpec(2, true, 14, 25, true, 0.001, 0.01, 64, true, 100);
    assertThat(same).isNotSameAs(full).isEqualTo(full).hasSameHashCodeAs(full);
    assertThat(full).isEqualTo(full).isNotEqualTo(null).isNotEqualTo("a spec");
    List<SketchSpec> oneComponentOff =
        List.of(
            new SketchSpec(3, true, 14, 25, true, 0.001, 0.01, 64, true, 100),
            new SketchSpec(2, false, 14, 25, true, 0.001, 0.01, 64, true, 100),
            new SketchSpec(2, true, 13, 25, true, 0.001, 0.01, 64, true, 100),
            new SketchSpec(2, true, 14, 24, true, 0.001, 0.01, 64, true, 100),
            new SketchSpec(2, true, 14, 25, false, 0.001, 0.01, 64, true, 100),
            new SketchSpec(2, true, 14, 25, true, 0.002, 0.01, 64, true, 100),
            new SketchSpec(2, true, 14, 25, true, 0.001, 0.02, 64, true, 100),
            new SketchSpec(2, true, 14, 25, true, 0.001, 0.01, 65, true, 100),
            new SketchSpec(2, true, 14, 25, true, 0.001, 0.01, 64, false, 100),
            new SketchSpec(2, true, 14, 25, true, 0.001, 0.01, 64, true, 101));
    for (SketchSpec other : oneComponentOff) {
      assertThat(other).isNotEqualTo(full);
      assertThat(full).isNotEqualTo(other);
      assertThat(full.describeDifference(other)).isNotEmpty();
    }
  }

  private static void assertInvalid(Runnable r, String message) {
    assertThatThrownBy(r::run).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
  }
}

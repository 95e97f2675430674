package dev.skewer.core.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class HoppingAndSessionSliceAssignerTest {

  @Property(tries = 500)
  void shouldPutEveryHoppingWindowExactlyOnTheSlicesInsideIt(
      @ForAll @IntRange(min = 1, max = 12) int sliceFactorSize,
      @ForAll @IntRange(min = 1, max = 12) int sliceFactorHop,
      @ForAll @LongRange(min = -1_000_000, max = 1_000_000) long t) {
    long size = 5L * sliceFactorSize * 7;
    long hop = Math.min(size, 5L * sliceFactorHop);
    HoppingSliceAssigner a = new HoppingSliceAssigner(size, hop);
    WindowShape.Hopping shape = (WindowShape.Hopping) a.shape();
    long slice = a.sliceStartMs(t);
    // given the slice of t, every window containing t contains the whole slice
    assertThat(slice).isLessThanOrEqualTo(t);
    assertThat(a.sliceEndMs(slice)).isGreaterThan(t);
    assertThat(size % a.sliceMs()).isZero();
    assertThat(hop % a.sliceMs()).isZero();
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    for (long w = Math.floorDiv(t - size, hop) * hop; w <= t; w += hop) {
      if (w <= t && t < w + size) {
        assertThat(w).isLessThanOrEqualTo(slice);
        assertThat(w + size).isGreaterThanOrEqualTo(a.sliceEndMs(slice));
        first = Math.min(first, w + size);
        last = Math.max(last, w + size);
      }
    }
    assertThat(shape.firstWindowEndMs(slice)).isEqualTo(first).isEqualTo(shape.firstWindowEndMs(t));
    assertThat(a.finalWatermarkMs(slice)).isEqualTo(last).isEqualTo(shape.lastWindowEndMs(t));
  }

  @Test
  void shouldSliceSixtySecondWindowsEverySecondIntoOneSecondSlices() {
    HoppingSliceAssigner a = new HoppingSliceAssigner(60_000, 1_000);
    assertThat(a.sliceMs()).isEqualTo(1_000);
    assertThat(a.sliceStartMs(12_345)).isEqualTo(12_000);
    assertThat(((WindowShape.Hopping) a.shape()).firstWindowEndMs(12_000)).isEqualTo(13_000);
    assertThat(a.finalWatermarkMs(12_000)).isEqualTo(72_000);
    assertThat(new HoppingSliceAssigner(60_000, 25_000).sliceMs()).isEqualTo(5_000);
    assertThatThrownBy(() -> new HoppingSliceAssigner(10, 20)).hasMessageContaining("hopMs");
  }

  @Property(tries = 500)
  void shouldCloseASessionAtTheFirstSliceBoundaryAfterEndPlusGap(
      @ForAll @LongRange(min = 1, max = 100_000) long gap,
      @ForAll @LongRange(min = -1_000_000, max = 1_000_000) long end) {
    SessionSliceAssigner a = new SessionSliceAssigner(gap);
    long close = SessionSliceAssigner.closeBoundaryMs(end, gap, a.sliceMs());
    assertThat(a.sliceMs()).isBetween(1L, gap);
    assertThat(close).isGreaterThanOrEqualTo(end + gap).isLessThan(end + gap + a.sliceMs());
    assertThat(Math.floorMod(close, a.sliceMs())).isZero();
    assertThat(a.finalWatermarkMs(a.sliceStartMs(end))).isGreaterThanOrEqualTo(close);
  }
}

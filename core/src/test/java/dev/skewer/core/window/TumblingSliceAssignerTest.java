package dev.skewer.core.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skewer.core.job.WindowSpec;
import java.time.Duration;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TumblingSliceAssignerTest {

  private final SliceAssigner tenSeconds =
      SliceAssigner.of(WindowSpec.tumbling(Duration.ofSeconds(10)));

  @ParameterizedTest
  @CsvSource({
    "0, 0",
    "1, 0",
    "9999, 0",
    "10000, 10000",
    "10001, 10000",
    "1700000000000, 1700000000000",
    "1700000009999, 1700000000000",
    "-1, -10000",
    "-10000, -10000",
    "-10001, -20000",
    "-9999, -10000"
  })
  void shouldFloorEventTimesToTheWindowStart(long eventTimeMs, long expectedStart) {
    assertThat(tenSeconds.sliceStartMs(eventTimeMs)).isEqualTo(expectedStart);
    assertThat(tenSeconds.sliceEndMs(expectedStart)).isEqualTo(expectedStart + 10_000);
  }

  @ParameterizedTest
  @CsvSource({
    "60000, 1700000012345, 1699999980000",
    "120000, 1700000012345, 1699999920000",
    "7, 20, 14"
  })
  void shouldAlignWindowsToTheEpoch(long sizeMs, long eventTimeMs, long expectedStart) {
    assertThat(new TumblingSliceAssigner(sizeMs).sliceStartMs(eventTimeMs))
        .isEqualTo(expectedStart);
  }

  @Property(tries = 1000)
  void shouldPlaceEveryTimeInsideItsWindow(
      @ForAll @LongRange(min = -8_640_000_000_000_000L, max = 8_640_000_000_000_000L) long t,
      @ForAll @LongRange(min = 1, max = 86_400_000L) long sizeMs) {
    TumblingSliceAssigner a = new TumblingSliceAssigner(sizeMs);
    long start = a.sliceStartMs(t);
    assertThat(start).isLessThanOrEqualTo(t);
    assertThat(a.sliceEndMs(start)).isGreaterThan(t);
    assertThat(Math.floorMod(start, sizeMs)).isZero();
    assertThat(a.sliceStartMs(start)).isEqualTo(start);
    assertThat(a.sliceStartMs(a.sliceEndMs(start))).isEqualTo(a.sliceEndMs(start));
  }

  @Test
  void shouldAssignEveryWindowKindTheRuntimeRuns() {
    assertThat(SliceAssigner.of(WindowSpec.session(Duration.ofMinutes(1))))
        .isInstanceOf(SessionSliceAssigner.class);
    assertThat(SliceAssigner.of(WindowSpec.hopping(Duration.ofMinutes(1), Duration.ofSeconds(1))))
        .isInstanceOf(HoppingSliceAssigner.class);
    assertThat(SliceAssigner.of(WindowSpec.hopping(Duration.ofMinutes(1), Duration.ofMinutes(1))))
        .isInstanceOf(TumblingSliceAssigner.class);
    assertThatThrownBy(() -> new TumblingSliceAssigner(0))
        .hasMessageContaining("sizeMs must be > 0, was 0");
  }
}

package dev.skewer.core.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skewer.core.job.WindowSpec;
import java.time.Duration;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TumblingWindowAssignerTest {

  private final WindowAssigner tenSeconds =
      WindowAssigner.of(WindowSpec.tumbling(Duration.ofSeconds(10)));

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
    assertThat(tenSeconds.windowStartMs(eventTimeMs)).isEqualTo(expectedStart);
    assertThat(tenSeconds.windowEndMs(expectedStart)).isEqualTo(expectedStart + 10_000);
  }

  @ParameterizedTest
  @CsvSource({
    "60000, 1700000012345, 1699999980000",
    "120000, 1700000012345, 1699999920000",
    "7, 20, 14"
  })
  void shouldAlignWindowsToTheEpoch(long sizeMs, long eventTimeMs, long expectedStart) {
    assertThat(new TumblingWindowAssigner(sizeMs).windowStartMs(eventTimeMs))
        .isEqualTo(expectedStart);
  }

  @Property(tries = 1000)
  void shouldPlaceEveryTimeInsideItsWindow(
      @ForAll @LongRange(min = -8_640_000_000_000_000L, max = 8_640_000_000_000_000L) long t,
      @ForAll @LongRange(min = 1, max = 86_400_000L) long sizeMs) {
    TumblingWindowAssigner a = new TumblingWindowAssigner(sizeMs);
    long start = a.windowStartMs(t);
    assertThat(start).isLessThanOrEqualTo(t);
    assertThat(a.windowEndMs(start)).isGreaterThan(t);
    assertThat(Math.floorMod(start, sizeMs)).isZero();
    assertThat(a.windowStartMs(start)).isEqualTo(start);
    assertThat(a.windowStartMs(a.windowEndMs(start))).isEqualTo(a.windowEndMs(start));
  }

  @org.junit.jupiter.api.Test
  void shouldAssignEveryWindowKindTheRuntimeRuns() {
    assertThat(WindowAssigner.of(WindowSpec.session(Duration.ofMinutes(1))))
        .isInstanceOf(SessionWindowAssigner.class);
    assertThat(WindowAssigner.of(WindowSpec.hopping(Duration.ofMinutes(1), Duration.ofSeconds(1))))
        .isInstanceOf(HoppingWindowAssigner.class);
    assertThat(WindowAssigner.of(WindowSpec.hopping(Duration.ofMinutes(1), Duration.ofMinutes(1))))
        .isInstanceOf(TumblingWindowAssigner.class);
    assertThatThrownBy(() -> new TumblingWindowAssigner(0))
        .hasMessageContaining("sizeMs must be > 0, was 0");
  }
}

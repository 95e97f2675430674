package dev.skewer.coordinator.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skewer.coordinator.merge.WindowMerger;
import dev.skewer.core.wire.Watermark;
import java.util.List;
import org.junit.jupiter.api.Test;

class StageStatusTest {

  @Test
  void shouldTakeTheMergersWatermarksAndSurviveEncoding() {
    WindowMerger merger = new WindowMerger(3, 0, QueryFixtures.job().toSketchSpec());
    merger.accept(new Watermark(0, 2, 50_000, false));
    merger.accept(new Watermark(1, 1, 40_000, false));
    merger.accept(new Watermark(2, 1, 90_000, true));
    OpenWindowTotals open =
        new OpenWindowTotals(
            40_000,
            50_000,
            List.of(new OpenWindowTotals.KeyTotals("a", 3, new double[] {1.5, Double.NaN}, 2.0)));
    StageStatus s = StageStatus.of(1, "coordinator-1", 7, merger, 123, List.of(open));
    assertThat(s.globalWatermarkMs()).isEqualTo(40_000);
    assertThat(s.sources())
        .containsExactly(
            new SourceStatus(0, 50_000, 2, false, true),
            new SourceStatus(1, 40_000, 1, false, true),
            new SourceStatus(2, 90_000, 1, true, true));
    assertThat(s.closed(40_000)).isTrue();
    assertThat(s.closed(40_001)).isFalse();
    StageStatus back = StageStatus.decode(s.encode());
    assertThat(back.sources()).isEqualTo(s.sources());
    assertThat(back.globalWatermarkMs()).isEqualTo(40_000);
    assertThat(back.open().get(0).keys().get(0).sums()[0]).isEqualTo(1.5);
    assertThat(back.open().get(0).keys().get(0).sums()[1]).isNaN();
    assertThat(back.open().get(0).keys().get(0).count()).isEqualTo(3);
    assertThatThrownBy(() -> StageStatus.decode("{}")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void shouldNotCloseAnythingWhileTheWatermarkIsHeldBack() {
    WindowMerger merger = new WindowMerger(2, 0, QueryFixtures.job().toSketchSpec());
    merger.accept(new Watermark(0, 0, 50_000, false)); // source 1 has not reported
    StageStatus s = StageStatus.of(0, "c", 0, merger, 0, List.of());
    assertThat(s.globalWatermarkMs()).isEqualTo(Long.MIN_VALUE);
    assertThat(s.closed(0)).isFalse();
    assertThat(StageStatus.decode(s.encode()).globalWatermarkMs()).isEqualTo(Long.MIN_VALUE);
  }
}

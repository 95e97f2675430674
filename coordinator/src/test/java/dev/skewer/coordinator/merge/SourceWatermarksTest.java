package dev.skewer.coordinator.merge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.core.wire.Watermark;
import org.junit.jupiter.api.Test;

class SourceWatermarksTest {

  @Test
  void shouldHoldBackUntilEverySourceHasReported() {
    SourceWatermarks w = new SourceWatermarks(3);
    w.update(new Watermark(0, 1, 100, false));
    w.update(new Watermark(1, 1, 200, false));
    assertThat(w.global()).isEqualTo(Long.MIN_VALUE);
    w.update(new Watermark(2, 1, 300, false));
    assertThat(w.global()).isEqualTo(100);
  }

  @Test
  void shouldExcludeIdleSourcesWhenSomeAreActive() {
    SourceWatermarks w = new SourceWatermarks(2);
    w.update(new Watermark(0, 1, 100, true));
    w.update(new Watermark(1, 1, 500, false));
    assertThat(w.global()).isEqualTo(500);
  }

  @Test
  void shouldCloseThroughTheLatestSourceWhenAllAreIdle() {
    // every idle source has sent its open slices: none holds the close back (end of input closes
    // what the latest source finalized, not only what the earliest one did)
    SourceWatermarks w = new SourceWatermarks(3);
    w.update(new Watermark(0, 1, 400, true));
    w.update(new Watermark(1, 1, 900, true));
    w.update(new Watermark(2, 1, Long.MIN_VALUE, true)); // never saw an event
    assertThat(w.global()).isEqualTo(900);
    assertThat(w.latenessMs()).isEqualTo(Long.MIN_VALUE); // nothing is dropped meanwhile
    assertThat(w.frontierMs()).isEqualTo(400);

    // and once one wakes up, it holds the close back again
    w.update(new Watermark(0, 1, 450, false));
    assertThat(w.global()).isEqualTo(450);
  }

  @Test
  void shouldNeverMoveSourceWatermarkBack() {
    SourceWatermarks w = new SourceWatermarks(1);
    w.update(new Watermark(0, 1, 400, false));
    w.update(new Watermark(0, 1, 300, false));
    assertThat(w.global()).isEqualTo(400);
  }

  @Test
  void shouldRefuseWatermarkFromOlderEpoch() {
    SourceWatermarks w = new SourceWatermarks(1);
    assertThat(w.update(new Watermark(0, 5, 400, false))).isTrue();
    assertThat(w.update(new Watermark(0, 4, 900, false))).isFalse();
    assertThat(w.global()).isEqualTo(400);
  }

  @Test
  void shouldGrowWhenSourcePartitionsAreAdded() {
    SourceWatermarks w = new SourceWatermarks(1);
    w.update(new Watermark(0, 1, 400, false));
    w.resize(2);
    assertThat(w.global()).isEqualTo(Long.MIN_VALUE);
    w.update(new Watermark(1, 1, 100, false));
    assertThat(w.global()).isEqualTo(100);
  }
}

package dev.skewer.coordinator.merge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.core.wire.Watermark;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.nio.ByteBuffer;
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
  void shouldTakeMinimumOfSeenSourcesWhenAllAreIdle() {
    SourceWatermarks w = new SourceWatermarks(3);
    w.update(new Watermark(0, 1, 400, true));
    w.update(new Watermark(1, 1, 900, true));
    w.update(new Watermark(2, 1, Long.MIN_VALUE, true)); // never saw an event
    assertThat(w.global()).isEqualTo(400);
  }

  @Test
  void shouldCloseWhatAnySourceAnnouncedOnceEverySourceReachedEndOfInput() {
    // a partition whose data ended earlier (400) must not hold the others' last windows forever
    SourceWatermarks w = new SourceWatermarks(3);
    w.update(new Watermark(0, 1, 400, true, 400, -1, true));
    w.update(new Watermark(1, 1, 850, true, 900, -1, true));
    w.update(new Watermark(2, 1, Long.MIN_VALUE, true)); // never saw an event
    assertThat(w.global()).isEqualTo(900);

    // one source idle but not at end of input: the minimum again
    w.update(new Watermark(0, 1, 400, true, 400, -1, false));
    assertThat(w.global()).isEqualTo(400);

    // one source active: the minimum over the active ones, as always
    w.update(new Watermark(0, 1, 450, false));
    assertThat(w.global()).isEqualTo(450);
  }

  @Test
  void shouldKeepTheEndOfInputFlagInItsCheckpoint() throws Exception {
    SourceWatermarks w = new SourceWatermarks(2);
    w.update(new Watermark(0, 1, 400, true, 400, -1, true));
    w.update(new Watermark(1, 1, 800, true, 800, -1, true));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    w.writeTo(new DataOutputStream(bytes));

    SourceWatermarks read =
        SourceWatermarks.readFrom(ByteBuffer.wrap(bytes.toByteArray()), 2, false);

    assertThat(read.finalized(0)).isTrue();
    assertThat(read.global()).isEqualTo(800);
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

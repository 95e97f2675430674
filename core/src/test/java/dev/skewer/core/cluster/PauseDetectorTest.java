package dev.skewer.core.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class PauseDetectorTest {

  private static final long MS = 1_000_000L;

  @Test
  void shouldReportAPauseForTheWindowAfterItEndedAndNotBefore() {
    AtomicLong now = new AtomicLong(1_000 * MS);
    PauseDetector d = new PauseDetector(now::get, Duration.ofSeconds(2), null);
    Duration window = Duration.ofSeconds(20);

    // regular ticks: no pause
    for (int i = 0; i < 20; i++) {
      now.addAndGet(250 * MS);
      d.tick();
    }
    assertThat(d.pausedWithin(window)).isEmpty();

    // a gap of 1.9 s is not a pause
    now.addAndGet(1_900 * MS);
    d.tick();
    assertThat(d.pausedWithin(window)).isEmpty();

    // while no tick comes for 2 s or more, it is paused (a pause under way)
    now.addAndGet(7_000 * MS);
    assertThat(d.pausedWithin(window)).contains(Duration.ofSeconds(7));

    // the next tick ends the 7.5 s pause, reported for 20 s after it ended
    now.addAndGet(500 * MS);
    d.tick();
    assertThat(d.pausedWithin(window)).contains(Duration.ofMillis(7_500));
    for (int i = 0; i < 80; i++) {
      now.addAndGet(250 * MS);
      d.tick();
    }
    assertThat(d.pausedWithin(window)).contains(Duration.ofMillis(7_500));
    now.addAndGet(250 * MS);
    d.tick();
    assertThat(d.pausedWithin(window)).isEmpty();
  }

  @Test
  void shouldTickOnItsOwnThreadWithoutReportingAPause() throws InterruptedException {
    try (PauseDetector d = PauseDetector.start(Duration.ofSeconds(5))) {
      Thread.sleep(600);
      assertThat(d.pausedWithin(Duration.ofSeconds(20))).isEmpty();
    }
  }
}

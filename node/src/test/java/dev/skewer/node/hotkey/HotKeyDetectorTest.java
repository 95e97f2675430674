package dev.skewer.node.hotkey;

import static org.assertj.core.api.Assertions.assertThat;

import com.clearspring.analytics.stream.Counter;
import com.clearspring.analytics.stream.StreamSummary;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class HotKeyDetectorTest {

  /** 50,000 events/s on this partition: one event every 20 µs, times in ms. */
  private static final int EVENTS_PER_SECOND = 50_000;

  private static long timeOf(long i) {
    return 1_000_000 + i * 1000 / EVENTS_PER_SECOND;
  }

  @Test
  void shouldFindAHalfShareKeyWithinATenthOfASecond() {
    // given
    HotKeyDetector detector = new HotKeyDetector(HotKeyDetector.Config.defaults());
    SplittableRandom random = new SplittableRandom(1);
    // when: 100 ms of traffic
    long i = 0;
    for (; i < EVENTS_PER_SECOND / 10; i++) {
      detector.update(
          random.nextBoolean() ? "ad0" : "ad" + (1 + random.nextInt(100_000)), timeOf(i));
    }
    // then
    List<HotKeyCandidate> found = detector.candidates(timeOf(i));
    assertThat(found).extracting(HotKeyCandidate::key).containsExactly("ad0");
    assertThat(found.get(0).share()).isBetween(0.45, 0.55);
    assertThat(found.get(0).eventsPerSecond())
        .isBetween(0.4 * EVENTS_PER_SECOND, 0.6 * EVENTS_PER_SECOND);
  }

  @Test
  void shouldReportABurstKeyWithinHalfASecondAndForgetItAfterTheWindow() {
    // given: 10 s of uniform traffic over 100,000 keys
    HotKeyDetector detector = new HotKeyDetector(HotKeyDetector.Config.defaults());
    SplittableRandom random = new SplittableRandom(2);
    long i = 0;
    for (; i < 10L * EVENTS_PER_SECOND; i++) {
      detector.update("ad" + random.nextInt(100_000), timeOf(i));
    }
    assertThat(detector.candidates(timeOf(i))).isEmpty();
    // when: ad7 takes 20% of the traffic for half a second
    long burstEnd = i + EVENTS_PER_SECOND / 2;
    for (; i < burstEnd; i++) {
      detector.update(random.nextInt(5) == 0 ? "ad7" : "ad" + random.nextInt(100_000), timeOf(i));
    }
    // then
    assertThat(detector.candidates(timeOf(i)))
        .extracting(HotKeyCandidate::key)
        .containsExactly("ad7");
    // when: 2.5 s uniform again (longer than the 2 s window)
    long coolEnd = i + 5L * EVENTS_PER_SECOND / 2;
    for (; i < coolEnd; i++) {
      detector.update("ad" + random.nextInt(100_000), timeOf(i));
    }
    assertThat(detector.candidates(timeOf(i))).isEmpty();
  }

  @Test
  void shouldNeverReportAKeyOfAUniformWorkload() {
    for (long seed = 0; seed < 5; seed++) {
      HotKeyDetector detector = new HotKeyDetector(HotKeyDetector.Config.defaults());
      SplittableRandom random = new SplittableRandom(seed);
      for (long i = 0; i < 3L * EVENTS_PER_SECOND; i++) {
        detector.update("ad" + random.nextInt(10_000), timeOf(i));
        if (i % 5_000 == 4_999) {
          assertThat(detector.candidates(timeOf(i))).as("seed %d event %d", seed, i).isEmpty();
        }
      }
    }
  }

  @Test
  void shouldEstimateThePartitionRateOverTheWindow() {
    HotKeyDetector detector = new HotKeyDetector(HotKeyDetector.Config.defaults());
    long i = 0;
    for (; i < 5L * EVENTS_PER_SECOND; i++) {
      detector.update("k" + (i % 1000), timeOf(i));
    }
    assertThat(detector.rate(timeOf(i)))
        .isBetween(0.95 * EVENTS_PER_SECOND, 1.05 * EVENTS_PER_SECOND);
    assertThat(detector.windowEvents(timeOf(i) + 60_000)).isZero();
    assertThat(detector.candidates(timeOf(i) + 60_000)).isEmpty();
  }

  @Test
  @SuppressWarnings("unchecked")
  void shouldSumTheGuaranteedCountsOfEveryKeyThatReachesTheMinimum() {
    // the candidates are found from the keys large in one sketch: the same keys and sums as adding
    // up every counter of every sketch
    for (long seed = 0; seed < 40; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      int capacity = 10 + random.nextInt(200);
      StreamSummary<String>[] sketches = new StreamSummary[1 + random.nextInt(6)];
      long events = 0;
      for (int b = 0; b < sketches.length; b++) {
        sketches[b] = new StreamSummary<>(capacity);
        int n = random.nextInt(4) == 0 ? 0 : random.nextInt(20_000);
        double skew = 0.5 + random.nextDouble() * 2;
        for (int i = 0; i < n; i++) {
          // a Zipf-like key: many small ones, a few large ones that move between sketches
          int key = (int) Math.floor(Math.pow(random.nextDouble(), skew * 3) * 2_000);
          sketches[b].offer("k" + (key + b * random.nextInt(2)));
        }
        events += n;
      }
      for (long minCount : new long[] {1, 2, 7, 50, Math.max(1, events / 500), events / 20 + 1}) {
        Map<String, Long> expected = new HashMap<>();
        for (StreamSummary<String> sketch : sketches) {
          for (Counter<String> c : sketch.topK(capacity)) {
            long lower = c.getCount() - c.getError();
            if (lower > 0) {
              expected.merge(c.getItem(), lower, Long::sum);
            }
          }
        }
        expected.values().removeIf(v -> v < minCount);

        assertThat(HotKeyDetector.guaranteedAtLeast(sketches, minCount))
            .as("seed %d minCount %d", seed, minCount)
            .isEqualTo(expected);
      }
    }
  }
}

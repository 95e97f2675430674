package dev.skewer.coordinator.hotkey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skewer.core.hotkey.HotKey;
import dev.skewer.core.hotkey.HotKeyTable;
import dev.skewer.testkit.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FanoutPolicyTest {

  /** 8 partitions, target = max(100, total/8 × 1/2) so that with 80,000 ev/s T = 5,000 ev/s. */
  private static final FanoutPolicy.Config CONFIG =
      FanoutPolicy.Config.defaults()
          .withTargetShare(0.5)
          .withQuietPeriod(Duration.ofSeconds(10))
          .withCandidateTtl(Duration.ofSeconds(2));

  private final ManualClock clock = new ManualClock(1_000_000);
  private final FanoutPolicy policy = new FanoutPolicy(CONFIG, 8, clock);

  /** One second of node observations: key at {@code rate} on partition 0, 80,000 ev/s in all. */
  private HotKeyTable tick(String key, double rate) {
    clock.advance(1_000);
    for (int p = 0; p < 8; p++) {
      policy.observePartitionRate(p, 10_000);
    }
    if (rate > 0) {
      policy.observeCandidate(0, key, rate);
    }
    return policy.decide();
  }

  @Test
  void shouldRaiseTheFanoutAtOnceToCeilRateOverTarget() {
    assertThat(tick("ad0", 4_000).isEmpty()).isTrue(); // below T = 5,000
    assertThat(tick("ad0", 12_000).entries()).containsExactly(new HotKey("ad0", 3, clock.millis()));
    long since = clock.millis();
    assertThat(tick("ad0", 20_001).get("ad0")).isEqualTo(new HotKey("ad0", 5, since));
    assertThat(policy.targetRate()).isEqualTo(5_000);
  }

  @Test
  void shouldTellWhetherOneReportedRateWouldRaiseAKeysFanout() {
    // before any decision: against the floor (100 ev/s)
    assertThat(policy.wouldRaise("ad0", 100)).isFalse();
    assertThat(policy.wouldRaise("ad0", 101)).isTrue();
    // after one: against its target (5,000), and the fanout the key has
    tick("ad0", 12_000); // fanout 3
    assertThat(policy.wouldRaise("ad0", 15_000)).as("ceil(15,000 / 5,000) = 3").isFalse();
    assertThat(policy.wouldRaise("ad0", 15_001)).isTrue();
    assertThat(policy.wouldRaise("ad1", 5_000)).as("at the target").isFalse();
    assertThat(policy.wouldRaise("ad1", 5_001)).isTrue();
    assertThat(policy.wouldRaise("ad1", Double.NaN)).isFalse();
    tick("ad0", 1_000_000); // fanout 8 = P
    assertThat(policy.wouldRaise("ad0", 10_000_000)).as("bounded by P").isFalse();
    assertThat(policy.table().fanout("ad0")).as("a question only").isEqualTo(8);
  }

  @Test
  void shouldBoundTheFanoutByThePartitionCount() {
    assertThat(tick("ad0", 1_000_000).fanout("ad0")).isEqualTo(8);
  }

  @Test
  void shouldHoldWhileTheRateIsAboveTheLowerThresholdAndNotFlap() {
    // given: fanout 3 (rate 12,000 > 2 × T)
    tick("ad0", 12_000);
    // when: the rate oscillates around the 2/3 boundary (10,000) for a minute
    List<Integer> fanouts = new ArrayList<>();
    for (int s = 0; s < 60; s++) {
      fanouts.add(tick("ad0", s % 2 == 0 ? 9_000 : 10_500).fanout("ad0"));
    }
    // then: it never moved (lowering needs < 0.7 × 2 × 5,000 = 7,000)
    assertThat(fanouts).containsOnly(3);
  }

  @Test
  void shouldLowerOnlyAfterTheQuietPeriodAndReturnToFanoutOneWhenCool() {
    // given
    tick("ad0", 30_000); // fanout 6
    long since = clock.millis();
    // when: the key cools to 1,000 ev/s
    for (int s = 0; s < 10; s++) { // below since the first of these: 0 .. 9 s
      assertThat(tick("ad0", 1_000).fanout("ad0")).as("second %d", s).isEqualTo(6);
    }
    // then: 10 s below, out of the table
    assertThat(tick("ad0", 1_000).fanout("ad0")).isEqualTo(1);
    assertThat(policy.table().isEmpty()).isTrue();
    // and a new burst is a new entry
    assertThat(tick("ad0", 30_000).get("ad0").sinceMs()).isGreaterThan(since);
  }

  @Test
  void shouldLowerToTheDesiredFanoutAndRestartTheQuietPeriod() {
    tick("ad0", 40_000); // 8
    for (int s = 0; s <= 10; s++) {
      tick("ad0", 14_000); // desired 3, below 0.7 × 7 × 5,000 for 10 s
    }
    assertThat(policy.table().fanout("ad0")).isEqualTo(3);
    // an interruption above the threshold resets the quiet period
    for (int s = 0; s < 9; s++) {
      tick("ad0", 4_000);
    }
    tick("ad0", 9_000); // above 0.7 × 2 × 5,000 = 7,000: hold, reset
    for (int s = 0; s < 10; s++) {
      assertThat(tick("ad0", 4_000).fanout("ad0")).isEqualTo(3);
    }
    assertThat(tick("ad0", 4_000).fanout("ad0")).isEqualTo(1);
  }

  @Test
  void shouldForgetStaleCandidatesAndSumPartitions() {
    clock.advance(1_000);
    for (int p = 0; p < 8; p++) {
      policy.observePartitionRate(p, 10_000);
    }
    policy.observeCandidate(0, "ad0", 6_000);
    policy.observeCandidate(1, "ad0", 6_000); // salted halves sum to 12,000
    assertThat(policy.decide().fanout("ad0")).isEqualTo(3);
    clock.advance(3_000); // candidates expired; partition rates too: T = max(100, 0) = 100
    assertThat(policy.decide().fanout("ad0")).isEqualTo(3); // cooling, held
    assertThat(policy.status()).singleElement().extracting(HotKeyStatus::cooling).isEqualTo(true);
  }

  @Test
  void shouldUseExactCountsOfTheLatestSealedWindow() {
    // given: a 10 s window with 800,000 events, ad0 has 200,000 of them (20,000 ev/s)
    policy.observeResult("ad0", 0, 10_000, 200_000);
    policy.observeResult("ad1", 0, 10_000, 600_000);
    assertThat(policy.decide().isEmpty()).isTrue(); // not sealed yet
    // when: a later window starts, or the window is sealed explicitly
    policy.sealWindowsEndingBy(10_000);
    HotKeyTable t = policy.decide();
    // then: T = 0.5 × 80,000 / 8 = 5,000 → ad0: 4, ad1: 12 → 8
    assertThat(t.fanout("ad0")).isEqualTo(4);
    assertThat(t.fanout("ad1")).isEqualTo(8);
    // results of older windows are ignored
    policy.observeResult("ad2", 0, 10_000, 700_000);
    assertThat(policy.decide().fanout("ad2")).isEqualTo(1);
  }

  @Test
  void shouldBeDeterministic() {
    List<HotKeyTable> a = run();
    List<HotKeyTable> b = run();
    assertThat(a).isEqualTo(b);
  }

  private static List<HotKeyTable> run() {
    ManualClock c = new ManualClock(5);
    FanoutPolicy p = new FanoutPolicy(CONFIG, 8, c);
    List<HotKeyTable> out = new ArrayList<>();
    for (int s = 0; s < 50; s++) {
      c.advance(700);
      p.observePartitionRate(s % 8, 10_000 + s);
      p.observeCandidate(s % 8, "k" + (s % 5), 3_000.0 * (s % 7));
      out.add(p.decide());
    }
    return out;
  }

  @Test
  void shouldSaltALowRateKeyOnlyWhenTheFloorIsBelowItsRate() {
    // given: 4,000 ev/s over 8 partitions (1/128 of a partition's mean = 3.9 ev/s); a key at 40/s
    FanoutPolicy shipped = new FanoutPolicy(FanoutPolicy.Config.defaults(), 8, clock);
    FanoutPolicy lowered =
        new FanoutPolicy(FanoutPolicy.Config.defaults().withMinTargetRate(10), 8, clock);
    for (FanoutPolicy p : List.of(shipped, lowered)) {
      for (int partition = 0; partition < 8; partition++) {
        p.observePartitionRate(partition, 500);
      }
      p.observeCandidate(3, "k", 40);
    }
    // when
    HotKeyTable byShipped = shipped.decide();
    HotKeyTable byLowered = lowered.decide();
    // then: T = max(100, 3.9) leaves it alone; T = max(10, 3.9) gives it ceil(40/10) sub-keys
    assertThat(shipped.targetRate()).isEqualTo(100);
    assertThat(byShipped.entries()).isEmpty();
    assertThat(lowered.targetRate()).isEqualTo(10);
    assertThat(byLowered.entries()).containsExactly(new HotKey("k", 4, clock.millis()));
  }

  @Test
  void shouldRefuseAFloorOrAShareOutsideTheirRanges() {
    FanoutPolicy.Config d = FanoutPolicy.Config.defaults();
    for (double bad : new double[] {0, -1, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertThatThrownBy(() -> d.withMinTargetRate(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("minTargetRate")
          .hasMessageContaining(Double.toString(bad));
    }
    for (double bad : new double[] {0, -0.5, 1.5, Double.NaN}) {
      assertThatThrownBy(() -> d.withTargetShare(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("targetShare")
          .hasMessageContaining(Double.toString(bad));
    }
    assertThat(d.withTargetShare(1).withMinTargetRate(0.5).minTargetRate()).isEqualTo(0.5);
  }
}

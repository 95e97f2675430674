package dev.skewer.loadgen.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BurstWorkloadTest {

  @Test
  void shouldGiveTheBurstKeyItsShareOnlyDuringTheBurst() {
    // given: 100,000 events/s for 20 s, burst 40% from 5 s for 10 s
    WorkloadSpec spec = WorkloadSpec.burst(2_000_000, 7);
    Workload w = Workload.of(spec);
    long[] burstIn = new long[3];
    long[] all = new long[3];
    // when
    while (w.hasNext()) {
      long i = w.generated();
      GeneratedEvent e = w.next();
      int phase = i < 500_000 ? 0 : i < 1_500_000 ? 1 : 2;
      all[phase]++;
      if (e.key().equals(spec.burstKey())) {
        burstIn[phase]++;
      }
    }
    // then
    assertThat(spec.burstKey()).isEqualTo("ad99999");
    assertThat((double) burstIn[1] / all[1]).isBetween(0.39, 0.41);
    assertThat(burstIn[0]).isLessThan(10);
    assertThat(burstIn[2]).isLessThan(10);
  }

  @Test
  void shouldKeepWorkloadsWithoutABurstUnchanged() {
    WorkloadSpec w1 = WorkloadSpec.w1(1_000, 3);
    WorkloadSpec sixteen =
        new WorkloadSpec(
            w1.name(),
            w1.events(),
            w1.keys(),
            w1.zipfS(),
            w1.hotKeyShare(),
            w1.users(),
            w1.valueMedian(),
            w1.valueSigma(),
            w1.startMs(),
            w1.eventsPerSecond(),
            w1.disorderMs(),
            w1.lateFraction(),
            w1.lateByMs(),
            w1.malformedFraction(),
            w1.futureFraction(),
            w1.seed());
    assertThat(sixteen).isEqualTo(w1);
    assertThat(w1.withBurst(0, Duration.ZERO, Duration.ZERO)).isEqualTo(w1);
    assertThat(keys(w1)).isEqualTo(keys(sixteen));
    // with-methods keep the burst
    WorkloadSpec b = WorkloadSpec.burst(10, 1).withZipfS(2.0).withSeed(9);
    assertThat(b.burstShare()).isEqualTo(0.4);
    assertThat(b.burstStartMs()).isEqualTo(5_000);
    assertThat(b.burstDurationMs()).isEqualTo(10_000);
  }

  @Test
  void shouldRejectAnImpossibleBurst() {
    assertThatThrownBy(
            () -> WorkloadSpec.w2(10, 1).withBurst(0.6, Duration.ZERO, Duration.ofSeconds(1)))
        .hasMessageContaining("burstShare");
    assertThatThrownBy(() -> WorkloadSpec.w1(10, 1).withBurst(1.5, Duration.ZERO, Duration.ZERO))
        .hasMessageContaining("burstShare");
  }

  private static List<String> keys(WorkloadSpec spec) {
    List<String> out = new ArrayList<>();
    Workload w = Workload.of(spec);
    while (w.hasNext()) {
      out.add(w.next().key());
    }
    return out;
  }
}

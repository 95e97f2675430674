package dev.skewer.loadgen.reference;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.loadgen.partition.EventPartitioner;
import dev.skewer.loadgen.reference.ExactReference.Route;
import dev.skewer.loadgen.workload.EventJson;
import dev.skewer.loadgen.workload.EventKind;
import dev.skewer.loadgen.workload.GeneratedEvent;
import dev.skewer.loadgen.workload.Malformation;
import dev.skewer.loadgen.workload.Workload;
import dev.skewer.loadgen.workload.WorkloadSpec;
import java.time.Duration;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ExactReferenceTest {

  // tumbling 10 s, watermark = max - 2 s, allowed lateness 5 s
  private static final long SIZE = 10_000;
  private static final long DELAY = 2_000;
  private static final long LATENESS = 5_000;

  @Test
  void shouldRouteByPartitionWatermarkWhenOnePartition() {
    // given
    ExactReference ref = new ExactReference(SIZE, DELAY, LATENESS, 1, null);

    // when / then
    assertThat(ref.accept(event("a", 1_000, 1.0))).isEqualTo(Route.WINDOW);
    assertThat(ref.watermarkMs(0)).isEqualTo(-1_000);
    assertThat(ref.accept(event("a", 14_000, 2.0))).isEqualTo(Route.WINDOW); // wm 12 000
    // window [0, 10 000) has closed at this partition but is within lateness: a revision
    assertThat(ref.accept(event("a", 9_000, 3.0))).isEqualTo(Route.WINDOW);
    assertThat(ref.accept(event("b", 17_000, 4.0))).isEqualTo(Route.WINDOW); // wm 15 000
    // windowEnd + lateness = 15 000 == watermark: too late (the boundary is late)
    assertThat(ref.accept(event("a", 5_000, 5.0))).isEqualTo(Route.LATE);
    assertThat(ref.accept(event("b", 17_999, 6.0))).isEqualTo(Route.WINDOW); // wm 15 999
    assertThat(ref.accept(event("a", 12_000, 7.0))).isEqualTo(Route.WINDOW);

    // then
    WindowKey first = new WindowKey("a", 0);
    assertThat(ref.windows())
        .containsOnlyKeys(first, new WindowKey("a", 10_000), new WindowKey("b", 10_000));
    ExactWindow a0 = ref.windows().get(first);
    assertThat(a0.count()).isEqualTo(2);
    assertThat(a0.sum()).isEqualTo(4.0);
    assertThat(a0.min()).isEqualTo(1.0);
    assertThat(a0.max()).isEqualTo(3.0);
    assertThat(a0.windowEndMs()).isEqualTo(10_000);
    assertThat(a0.revisionExpected()).isTrue();
    ExactWindow a1 = ref.windows().get(new WindowKey("a", 10_000));
    assertThat(a1.count()).isEqualTo(2);
    assertThat(a1.revisionExpected()).isFalse();
    assertThat(ref.late()).extracting(GeneratedEvent::eventTimeMs).containsExactly(5_000L);
    assertThat(ref.totalCount()).isEqualTo(6);
  }

  @Test
  void shouldAcceptJustBeforeBoundaryWhenWatermarkOneLess() {
    ExactReference ref = new ExactReference(SIZE, DELAY, LATENESS, 1, null);
    ref.accept(event("a", 16_999, 1.0)); // wm 14 999 < 15 000
    assertThat(ref.accept(event("a", 0, 1.0))).isEqualTo(Route.WINDOW);
    ref.accept(event("a", 17_000, 1.0)); // wm 15 000
    assertThat(ref.accept(event("a", 9_999, 1.0))).isEqualTo(Route.LATE);
    assertThat(ref.windows().get(new WindowKey("a", 0)).count()).isEqualTo(1);
  }

  @Test
  void shouldSendMalformedAndFutureToDlqWithoutMovingWatermark() {
    // given
    ExactReference ref = new ExactReference(SIZE, DELAY, LATENESS, 1, null);
    ref.accept(event("a", 20_000, 1.0)); // wm 18 000
    GeneratedEvent future =
        new GeneratedEvent(
            "a",
            "u1",
            1.0,
            20_000 + 2 * 86_400_000L,
            EventKind.FUTURE,
            EventJson.encode("a", "u1", 1.0, 20_000 + 2 * 86_400_000L),
            "a",
            null);
    GeneratedEvent malformed =
        new GeneratedEvent(
            "a",
            "u1",
            1.0,
            20_000,
            EventKind.MALFORMED,
            EventJson.malformed(Malformation.MISSING_TS, "a", "u1", 1.0, 20_000),
            "a",
            Malformation.MISSING_TS);

    // when
    Route futureRoute = ref.accept(future);
    Route malformedRoute = ref.accept(malformed);

    // then
    assertThat(futureRoute).isEqualTo(Route.DLQ);
    assertThat(malformedRoute).isEqualTo(Route.DLQ);
    assertThat(ref.dlq()).containsExactly(future, malformed);
    assertThat(ref.watermarkMs(0)).isEqualTo(18_000);
    assertThat(ref.accept(event("a", 10_000, 1.0))).isEqualTo(Route.WINDOW); // 25 000 > 18 000
    assertThat(ref.totalCount()).isEqualTo(2);
  }

  @Test
  void shouldDecideLatenessByWatermarkNotKindWhenPartitionsLag() {
    // given two keys on different partitions of 2
    String fast = "ad0";
    String slow =
        IntStream.range(1, 1_000)
            .mapToObj(i -> "ad" + i)
            .filter(k -> EventPartitioner.partition(k, 2) != EventPartitioner.partition(fast, 2))
            .findFirst()
            .orElseThrow();
    ExactReference ref = new ExactReference(SIZE, DELAY, LATENESS, 2, null);
    ref.accept(event(fast, 100_000, 1.0));
    ref.accept(event(slow, 1_000, 1.0));

    // when: LATE-kind events 90 s behind the fast partition
    Route onSlow = ref.accept(lateKind(slow, 10_000));
    Route onFast = ref.accept(lateKind(fast, 10_000));

    // then: only the fast partition's watermark makes it late
    assertThat(onSlow).isEqualTo(Route.WINDOW);
    assertThat(onFast).isEqualTo(Route.LATE);
    assertThat(ref.windows().get(new WindowKey(slow, 10_000)).count()).isEqualTo(1);
  }

  @Test
  void shouldCountEveryEventWhenW1HasNoLateness() {
    // given W1's job: 10 s windows, delay 2 s: nothing is late
    ExactReference ref =
        ExactReference.of(Duration.ofSeconds(10), Duration.ofSeconds(2), Duration.ZERO, 4, null);
    Workload workload = Workload.of(WorkloadSpec.w1(300_000, 11));

    // when
    while (workload.hasNext()) {
      ref.accept(workload.next());
    }

    // then
    assertThat(ref.late()).isEmpty();
    assertThat(ref.dlq()).isEmpty();
    assertThat(ref.totalCount()).isEqualTo(300_000);
    assertThat(ref.windows().values().stream().mapToLong(ExactWindow::count).sum())
        .isEqualTo(300_000);
    assertThat(ref.windows().values().stream().anyMatch(ExactWindow::revisionExpected)).isFalse();
  }

  private static GeneratedEvent event(String key, long ts, double value) {
    return GeneratedEvent.of(key, "u" + ts % 7, value, ts, EventKind.NORMAL);
  }

  private static GeneratedEvent lateKind(String key, long ts) {
    return GeneratedEvent.of(key, "u1", 1.0, ts, EventKind.LATE);
  }
}

package dev.skewer.loadgen.reference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import dev.skewer.loadgen.workload.GeneratedEvent;
import dev.skewer.loadgen.workload.Workload;
import dev.skewer.loadgen.workload.WorkloadSpec;
import dev.skewer.sketches.Aggregate;
import dev.skewer.sketches.SketchSpec;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ExactReferenceAggregateTest {

  private static final SketchSpec W1_SPEC =
      SketchSpec.countsOnly(1).withDistinct(14, 25).withQuantiles(100);

  @Test
  void shouldBuildReferenceAggregatesFromTheSameEventsWhenSpecGiven() {
    // given
    ExactReference ref =
        ExactReference.of(Duration.ofSeconds(10), Duration.ofSeconds(2), Duration.ZERO, 4, W1_SPEC);
    Workload workload = Workload.of(WorkloadSpec.w1(30_000, 3).withKeys(50));
    Map<WindowKey, Set<String>> users = new HashMap<>();

    // when
    while (workload.hasNext()) {
      GeneratedEvent e = workload.next();
      ref.accept(e);
      users
          .computeIfAbsent(
              new WindowKey(e.key(), Math.floorDiv(e.eventTimeMs(), 10_000) * 10_000),
              k -> new HashSet<>())
          .add(e.user());
    }

    // then
    assertThat(ref.windows()).isNotEmpty();
    for (ExactWindow w : ref.windows().values()) {
      Aggregate a = w.aggregate();
      assertThat(a.count()).isEqualTo(w.count());
      assertThat(a.sum(0)).isCloseTo(w.sum(), offset(1e-6 * Math.max(1, w.sum())));
      assertThat(a.min(0)).isEqualTo(w.min());
      assertThat(a.max(0)).isEqualTo(w.max());
      long exact = users.get(new WindowKey(w.key(), w.windowStartMs())).size();
      // sparse HLL++ (p' = 25) is near exact at these cardinalities
      assertThat((double) a.distinct().estimate())
          .isCloseTo(exact, offset(Math.max(2, exact * 0.02)));
    }
  }
}

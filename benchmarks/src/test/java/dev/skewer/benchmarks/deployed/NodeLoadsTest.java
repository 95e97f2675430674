package dev.skewer.benchmarks.deployed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Offset.offset;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeLoadsTest {

  @Test
  void shouldBeOneWhenEveryNodeProcessedTheSame() {
    NodeLoads loads = new NodeLoads(Map.of("node-1", 10L, "node-2", 10L, "node-3", 10L));

    assertThat(loads.maxOverMean()).isEqualTo(1.0);
  }

  @Test
  void shouldBeTheNodeCountWhenOneNodeProcessedEverything() {
    Map<String, Long> events = new HashMap<>();
    for (int i = 1; i <= 8; i++) {
      events.put("node-" + i, i == 3 ? 1_000_000L : 0L);
    }

    assertThat(new NodeLoads(events).maxOverMean()).isEqualTo(8.0);
  }

  @Test
  void shouldDivideTheBusiestByTheMeanWhenLoadsDiffer() {
    // given: mean 25, max 40
    NodeLoads loads = new NodeLoads(Map.of("a", 10L, "b", 20L, "c", 30L, "d", 40L));

    // then
    assertThat(loads.total()).isEqualTo(100);
    assertThat(loads.mean()).isEqualTo(25.0);
    assertThat(loads.maxOverMean()).isCloseTo(1.6, offset(1e-12));
  }

  @Test
  void shouldBeNaNWhenNothingWasProcessed() {
    assertThat(new NodeLoads(Map.of("a", 0L, "b", 0L)).maxOverMean()).isNaN();
  }

  @Test
  void shouldCountOnlyTheLaterEventsWhenTakenSinceAnEarlierReading() {
    // given
    NodeLoads before = new NodeLoads(Map.of("a", 100L, "b", 0L));
    NodeLoads after = new NodeLoads(Map.of("a", 150L, "b", 50L));

    // when
    NodeLoads since = after.since(before);

    // then
    assertThat(since.events()).containsEntry("a", 50L).containsEntry("b", 50L);
    assertThat(since.maxOverMean()).isEqualTo(1.0);
  }

  @Test
  void shouldRefuseNoNodesNegativeCountsAndDifferentNodes() {
    assertThatThrownBy(() -> new NodeLoads(Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one node");
    assertThatThrownBy(() -> new NodeLoads(Map.of("a", -1L)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("events of a must be >= 0: -1");
    assertThatThrownBy(() -> new NodeLoads(Map.of("a", 1L)).since(new NodeLoads(Map.of("b", 1L))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nodes differ");
    assertThatThrownBy(() -> new NodeLoads(Map.of("a", 1L)).since(new NodeLoads(Map.of("a", 2L))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be >= 0");
  }
}

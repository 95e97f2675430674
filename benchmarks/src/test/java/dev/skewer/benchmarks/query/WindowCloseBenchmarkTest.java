package dev.skewer.benchmarks.query;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class WindowCloseBenchmarkTest {

  @Test
  void shouldCloseEveryKeyOfTheWindowWithEveryHeldSourceMerged() {
    for (int sources : new int[] {1, 2}) {
      WindowCloseBenchmark bench = new WindowCloseBenchmark();
      bench.sources = sources;
      bench.setUp();
      W1Results results =
          new W1Results(WindowCloseBenchmark.KEYS * WindowCloseBenchmark.PARTITIONS, 1);
      long expected = 0;
      for (int k = 0; k < WindowCloseBenchmark.KEYS; k++) {
        for (int s = 0; s < sources; s++) {
          expected += results.aggregates[k * WindowCloseBenchmark.PARTITIONS + s].count();
        }
      }

      bench.fill();
      long first = bench.closeW1Window();
      bench.fill();
      long second = bench.closeW1Window();

      assertThat(first).as("events merged, %d source(s) per key", sources).isEqualTo(expected);
      assertThat(second).isEqualTo(2 * expected);
    }
  }
}

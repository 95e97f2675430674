package dev.skewer.coordinator.merge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.core.wire.Partial;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ResultSourcesTest {

  private static Partial from(int partition, long epoch) {
    return new Partial(partition, epoch, 1, "k", 0, 10_000, new byte[0]);
  }

  @Test
  void sourcesComeOutAscendingWithTheHighestEpochOfEach() {
    ResultSources.Builder b = new ResultSources.Builder();
    b.add(from(5, 2));
    b.add(from(1, 7));
    b.add(from(5, 9));
    b.add(from(3, 1));
    b.add(from(1, 4));

    ResultSources sources = b.build();

    assertThat(sources.partitions()).containsExactly(1, 3, 5);
    assertThat(sources.epochs()).containsExactly(7L, 1L, 9L);
  }

  @Test
  void noPartialsGiveNoSources() {
    assertThat(new ResultSources.Builder().build()).isEqualTo(ResultSources.NONE);
  }

  @Test
  void agreesWithASortedMapOverManyRandomSequences() {
    Random random = new Random(42);
    for (int round = 0; round < 500; round++) {
      ResultSources.Builder b = new ResultSources.Builder();
      TreeMap<Integer, Long> expected = new TreeMap<>();
      int n = random.nextInt(40);
      for (int i = 0; i < n; i++) {
        int partition = random.nextInt(16);
        long epoch = random.nextInt(100);
        b.add(from(partition, epoch));
        expected.merge(partition, epoch, Math::max);
      }
      ResultSources sources = b.build();
      assertThat(sources.partitions())
          .containsExactly(expected.keySet().stream().mapToInt(Integer::intValue).toArray());
      assertThat(sources.epochs())
          .containsExactly(expected.values().stream().mapToLong(Long::longValue).toArray());
    }
  }
}

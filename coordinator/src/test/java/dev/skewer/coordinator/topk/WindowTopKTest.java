package dev.skewer.coordinator.topk;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class WindowTopKTest {

  @Test
  void shouldKeepTheLargestKWithDeterministicTies() {
    WindowTopK t = new WindowTopK(2, 4);
    t.record(0, 10, "b", 5);
    t.record(0, 10, "a", 5);
    t.record(0, 10, "c", 1);
    assertThat(t.top(0)).containsExactly(new TopKEntry("a", 5), new TopKEntry("b", 5));
  }

  @Test
  void shouldApplyRevisionsToHeldAndOutsideKeys() {
    WindowTopK t = new WindowTopK(2, 4);
    t.record(0, 10, "a", 5);
    t.record(0, 10, "b", 4);
    t.record(0, 10, "c", 3);
    t.record(0, 10, "c", 9); // revision lifts c into the top
    t.record(0, 10, "a", 6);
    assertThat(t.top(0)).containsExactly(new TopKEntry("c", 9), new TopKEntry("a", 6));
  }

  @Test
  void shouldEvictOldestWindowBeyondBound() {
    WindowTopK t = new WindowTopK(3, 2);
    t.record(0, 10, "a", 1);
    t.record(10, 20, "a", 1);
    t.record(20, 30, "a", 1);
    assertThat(t.top(0)).isEmpty();
    assertThat(t.top(20)).hasSize(1);
  }

  @Test
  void shouldMergeDisjointPartitionListsIntoExactGlobalTopK() {
    SplittableRandom rnd = new SplittableRandom(42);
    for (int trial = 0; trial < 50; trial++) {
      int partitions = 1 + rnd.nextInt(4);
      int k = 1 + rnd.nextInt(10);
      Map<String, Long> counts = new HashMap<>();
      List<WindowTopK> perPartition = new ArrayList<>();
      for (int q = 0; q < partitions; q++) {
        perPartition.add(new WindowTopK(k, 4));
      }
      for (int i = 0; i < 200; i++) {
        String key = "k" + i;
        long count = rnd.nextLong(1, 1000);
        counts.put(key, count);
        perPartition.get(Math.floorMod(key.hashCode(), partitions)).record(0, 10, key, count);
      }
      List<List<TopKEntry>> lists = new ArrayList<>();
      perPartition.forEach(p -> lists.add(p.top(0)));
      List<TopKEntry> expected = new ArrayList<>();
      counts.forEach((key, c) -> expected.add(new TopKEntry(key, c)));
      expected.sort(WindowTopK.ORDER);
      assertThat(WindowTopK.mergeTop(lists, k)).isEqualTo(expected.subList(0, k));
    }
  }

  @Test
  void shouldRoundTripPublishedLists() {
    List<TopKEntry> entries =
        List.of(new TopKEntry("a\nb", 3), new TopKEntry("back\\slash\t", 2), new TopKEntry("", 1));
    TopKCodec.Decoded d = TopKCodec.decode(TopKCodec.encode(99, entries));
    assertThat(d.windowEndMs()).isEqualTo(99);
    assertThat(d.entries()).isEqualTo(entries);
    assertThat(entries).isSortedAccordingTo(Comparator.comparingLong(TopKEntry::count).reversed());
  }
}

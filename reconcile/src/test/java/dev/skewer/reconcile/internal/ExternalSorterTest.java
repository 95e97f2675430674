package dev.skewer.reconcile.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExternalSorterTest {

  @TempDir Path dir;

  private static List<byte[]> records(long seed, int n) {
    Random random = new Random(seed);
    SortRecord.Writer w = new SortRecord.Writer();
    List<byte[]> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String key = "key-" + random.nextInt(500);
      out.add(
          w.event(
              key,
              random.nextInt(4),
              random.nextInt(1_000_000),
              random.nextLong(),
              Long.MIN_VALUE,
              new double[] {random.nextDouble()},
              "u" + random.nextInt(100),
              null,
              Double.NaN,
              new String[0]));
    }
    return out;
  }

  private static List<byte[]> drain(Iterator<byte[]> it) {
    List<byte[]> out = new ArrayList<>();
    it.forEachRemaining(out::add);
    return out;
  }

  @Test
  void shouldSortInMemoryWhenTheBudgetSuffices() {
    List<byte[]> input = records(1, 5_000);
    try (ExternalSorter sorter = new ExternalSorter(SortRecord.ORDER, 64L << 20, dir)) {
      input.forEach(sorter::add);
      List<byte[]> sorted = drain(sorter.sorted());
      List<byte[]> expected = new ArrayList<>(input);
      expected.sort(SortRecord.ORDER);
      assertThat(sorted).containsExactlyElementsOf(expected);
      assertThat(sorter.runsWritten()).isZero();
    }
  }

  @Test
  void shouldSpillAndMergeInSeveralPassesWhenTheBudgetIsTiny() throws Exception {
    // given more runs than one merge takes
    List<byte[]> input = records(2, 30_000);
    List<byte[]> expected = new ArrayList<>(input);
    expected.sort(SortRecord.ORDER);
    try (ExternalSorter sorter = new ExternalSorter(SortRecord.ORDER, 16 << 10, dir)) {
      input.forEach(sorter::add);
      assertThat(sorter.runsWritten()).isGreaterThan(ExternalSorter.MERGE_FACTOR);

      // when
      List<byte[]> sorted = drain(sorter.sorted());

      // then the same records in the same order, and memory stayed within the budget
      assertThat(sorted).containsExactlyElementsOf(expected);
      assertThat(sorter.peakBufferedBytes()).isLessThan((16 << 10) + 1024);
      assertThat(sorter.records()).isEqualTo(30_000);
    }
    try (var left = Files.list(dir)) {
      assertThat(left.count()).as("run files are deleted on close").isZero();
    }
  }
}

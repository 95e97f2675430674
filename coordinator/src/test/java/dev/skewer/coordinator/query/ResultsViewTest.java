package dev.skewer.coordinator.query;

import static dev.skewer.coordinator.query.QueryFixtures.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skewer.core.job.JobSpec;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ResultsViewTest {

  private final JobSpec job = QueryFixtures.job();

  @Test
  void shouldParseTheEnvelopeTheFormatterWrites() {
    StoredResult r = result(job, "ad7", 20_000, 5, 2.5, 3, 1);
    assertThat(r.key()).isEqualTo("ad7");
    assertThat(r.windowStartMs()).isEqualTo(20_000);
    assertThat(r.windowEndMs()).isEqualTo(30_000);
    assertThat(r.count()).isEqualTo(5);
    assertThat(r.revision()).isEqualTo(1);
    assertThat(r.sums()).containsExactly(12.5, 5.0);
    assertThat(r.distinct()).isEqualTo(3.0);
    assertThat(r.superseded()).isFalse();
  }

  @Test
  void shouldRefuseWhatIsNotAResultEnvelope() {
    ResultParser parser = new ResultParser(job);
    assertThatThrownBy(() -> parser.parse("not json".getBytes()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> parser.parse("[1]".getBytes()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> parser.parse("{\"key\":\"a\",\"value\":{}}".getBytes()))
        .hasMessageContaining("window_start_ms");
    assertThatThrownBy(() -> parser.parse("{\"key\":1,\"value\":{}}".getBytes()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> parser.parse(null)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void shouldKeepTheHighestRevisionPerKeyAndWindow() {
    ResultsView view = new ResultsView(1 << 30);
    view.add(result(job, "a", 0, 5, 1, 1, 0), 1, 1);
    view.add(result(job, "a", 0, 7, 1, 1, 1), 2, 2);
    view.add(result(job, "a", 0, 5, 1, 1, 0), 3, 3); // a replay of revision 0
    WindowResults w = view.window(0);
    assertThat(w.get("a").count()).isEqualTo(7);
    assertThat(w.records()).isEqualTo(3);
    assertThat(w.revisions()).isEqualTo(1);
    assertThat(w.keys()).isEqualTo(1);
  }

  @Test
  void shouldRankExactlyByCountSumAndDistinctWithTiesByKey() {
    ResultsView view = new ResultsView(1 << 30);
    view.add(result(job, "b", 0, 10, 1.0, 10, 0), 0, 0);
    view.add(result(job, "a", 0, 10, 3.0, 2, 0), 0, 0);
    view.add(result(job, "c", 0, 4, 100.0, 4, 0), 0, 0);
    WindowResults w = view.window(0);
    assertThat(w.top(Ranking.COUNT, 10))
        .extracting(StoredResult::key)
        .containsExactly("a", "b", "c");
    assertThat(w.top(Ranking.sum(0), 2)).extracting(StoredResult::key).containsExactly("c", "a");
    assertThat(w.top(Ranking.sum(1), 3))
        .extracting(StoredResult::key)
        .containsExactly("a", "b", "c");
    assertThat(w.top(Ranking.DISTINCT, 1)).extracting(StoredResult::key).containsExactly("b");
    // a revision re-ranks
    view.add(result(job, "c", 0, 50, 100.0, 4, 1), 0, 0);
    assertThat(w.top(Ranking.COUNT, 1)).extracting(StoredResult::key).containsExactly("c");
  }

  @Test
  void shouldEvictWholeOldestWindowsToStayWithinTheBoundAndNeverTheNewest() {
    long perResult = result(job, "k0", 0, 3, 1, 1, 0).estimatedBytes();
    ResultsView view = new ResultsView(perResult * 25); // room for two windows of 10 keys
    for (int w = 0; w < 5; w++) {
      for (int k = 0; k < 10; k++) {
        view.add(result(job, "k" + k, w * 10_000L, 3, 1, 1, 0), 0, 0);
      }
    }
    assertThat(view.windows().keySet()).containsExactly(30_000L, 40_000L);
    assertThat(view.windows().values()).allMatch(w -> w.keys() == 10);
    assertThat(view.bytes()).isLessThanOrEqualTo(perResult * 25);
    assertThat(view.evictedWindows()).isEqualTo(3);
    // a late revision of an evicted window is dropped and counted
    view.add(result(job, "k1", 10_000, 4, 1, 1, 1), 0, 0);
    assertThat(view.window(10_000)).isNull();
    assertThat(view.droppedOld()).isEqualTo(1);
    // one window larger than the bound stays whole
    ResultsView tiny = new ResultsView(perResult * 2);
    for (int k = 0; k < 10; k++) {
      tiny.add(result(job, "k" + k, 0, 3, 1, 1, 0), 0, 0);
    }
    assertThat(tiny.window(0).keys()).isEqualTo(10);
  }

  @Test
  void shouldAnswerAKeyAcrossWindowsInARange() {
    ResultsView view = new ResultsView(1 << 30);
    for (int w = 0; w < 4; w++) {
      view.add(result(job, "a", w * 10_000L, w + 1, 1, 1, 0), 0, 0);
      view.add(result(job, "b", w * 10_000L, 1, 1, 1, 0), 0, 0);
    }
    List<StoredResult> a = view.key("a", 10_000, 30_000);
    assertThat(a).extracting(StoredResult::count).containsExactly(2L, 3L);
    assertThat(view.key("a", Long.MIN_VALUE, Long.MAX_VALUE)).hasSize(4);
    assertThat(view.key("zz", Long.MIN_VALUE, Long.MAX_VALUE)).isEmpty();
  }

  @Test
  void shouldRankEveryKeyExactlyForAnyKWithTiesBrokenByKey() {
    // given: 3,000 keys of one window with many equal counts, arriving in random order
    ResultsView view = new ResultsView(1L << 32);
    Random random = new Random(7);
    List<StoredResult> all = new ArrayList<>();
    for (int i = 0; i < 3_000; i++) {
      all.add(result(job, "key-" + random.nextInt(1_000_000), 0, 1 + random.nextInt(20), 1, 1, 0));
    }
    java.util.Collections.shuffle(all, random);
    all.forEach(r -> view.add(r, 0, 0));
    List<StoredResult> expected = new ArrayList<>(view.window(0).all());
    expected.sort(
        Comparator.comparingLong(StoredResult::count).reversed().thenComparing(StoredResult::key));
    // then: every k is the exact prefix of the brute-force order
    for (int k : new int[] {1, 10, 99, 100, 101, 1_000, 2_999, 10_000}) {
      assertThat(view.window(0).top(Ranking.COUNT, k))
          .as("k=%d", k)
          .containsExactlyElementsOf(expected.subList(0, Math.min(k, expected.size())));
    }
  }

  @Test
  void shouldReplaceOnlyTheRevisedKeyAndKeepEveryOtherKeyOfTheWindow() {
    // given: a complete window of 50 keys
    ResultsView view = new ResultsView(1 << 30);
    for (int i = 0; i < 50; i++) {
      view.add(result(job, "k" + i, 0, 10 + i, 1, 1, 0), 0, 0);
    }
    // when: a late revision of one key arrives (the merge stage has long dropped the window)
    view.add(result(job, "k3", 0, 1_000, 1, 1, 2), 1, 1);
    // then: that key's entry is replaced, ranked first, and the other 49 are untouched
    List<StoredResult> top = view.window(0).top(Ranking.COUNT, 10_000);
    assertThat(top).hasSize(50);
    assertThat(top.get(0).key()).isEqualTo("k3");
    assertThat(top.get(0).revision()).isEqualTo(2);
    assertThat(top.get(1).key()).isEqualTo("k49");
    assertThat(top.subList(1, 50)).allMatch(r -> r.revision() == 0 && r.count() >= 10);
  }

  @Test
  void shouldNotAnswerBeforeCaughtUpAndNeverStartAPartialWindowForAnEvictedOne() {
    long perResult = result(job, "k0", 0, 3, 1, 1, 0).estimatedBytes();
    ResultsView view = new ResultsView(perResult * 15); // room for one window of 10 keys
    assertThat(view.caughtUp()).isFalse();
    for (int w = 0; w < 3; w++) {
      for (int k = 0; k < 10; k++) {
        view.add(result(job, "k" + k, w * 10_000L, 3, 1, 1, 0), 0, 0);
      }
    }
    view.markCaughtUp();
    assertThat(view.caughtUp()).isTrue();
    assertThat(view.windows().keySet()).containsExactly(20_000L);
    // a revision of an evicted window does not bring it back with one key
    view.add(result(job, "k4", 0, 9, 1, 1, 1), 0, 0);
    view.add(result(job, "k4", 10_000, 9, 1, 1, 1), 0, 0);
    assertThat(view.windows().keySet()).containsExactly(20_000L);
    assertThat(view.droppedOld()).isEqualTo(2);
  }
}

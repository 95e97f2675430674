package dev.skewer.coordinator.merge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.core.checkpoint.CapturedState;
import dev.skewer.core.wire.Partial;
import dev.skewer.core.wire.Watermark;
import dev.skewer.sketches.Aggregate;
import dev.skewer.sketches.AggregateCodec;
import dev.skewer.sketches.SketchSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class WindowMergerTest {

  private static final SketchSpec SPEC = SketchSpec.countsOnly(1).withQuantiles(100);

  private static byte[] aggregate(double... values) {
    Aggregate a = Aggregate.empty(SPEC);
    for (double v : values) {
      a.update(new double[] {v}, null, null, v);
    }
    return AggregateCodec.encode(a);
  }

  private static Partial partial(
      int source, long epoch, long version, String key, double... values) {
    return new Partial(source, epoch, version, key, 0, 10_000, aggregate(values));
  }

  private static List<FinalResult> advance(WindowMerger m) {
    List<FinalResult> out = new ArrayList<>();
    m.advance(out::add);
    return out;
  }

  @Test
  void shouldEmitExactlyOneFinalResultWhenGlobalWatermarkPassesWindowEnd() {
    WindowMerger m = new WindowMerger(2, 0, SPEC);
    m.accept(partial(0, 1, 1, "k", 1, 2));
    m.accept(partial(1, 1, 1, "k", 3));
    m.accept(new Watermark(0, 1, 10_000, false));
    assertThat(advance(m)).as("source 1 has not reported").isEmpty();
    m.accept(new Watermark(1, 1, 9_999, false));
    assertThat(advance(m)).isEmpty();
    m.accept(new Watermark(1, 1, 10_000, false));
    List<FinalResult> out = advance(m);
    assertThat(out)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.key()).isEqualTo("k");
              assertThat(r.revision()).isZero();
              assertThat(r.aggregate().count()).isEqualTo(3);
              assertThat(r.aggregate().sum(0)).isEqualTo(6.0);
            });
    m.accept(new Watermark(0, 1, 20_000, false));
    m.accept(new Watermark(1, 1, 20_000, false));
    assertThat(advance(m)).as("exactly once").isEmpty();
    assertThat(m.openWindows()).isZero();
  }

  @Test
  void shouldEncodeACapturedStateAsOfItsCaptureWhenTheSourcesGrowMeanwhile() {
    WindowMerger m = new WindowMerger(3, 0, SPEC);
    for (int source = 0; source < 3; source++) {
      m.accept(partial(source, 1, 1, "k" + source, source + 1));
    }
    m.accept(new Watermark(2, 1, 4_000, false));
    byte[] atCapture = m.snapshot();

    CapturedState captured = m.capture();
    m.resizeSources(5); // the events topic grew: a stage timer tells the merger meanwhile

    assertThat(captured.encode()).isEqualTo(atCapture);
    assertThat(m.snapshot()).isNotEqualTo(atCapture);
    assertThat(WindowMerger.restore(atCapture, 3, 0, SPEC).snapshot()).isEqualTo(atCapture);
  }

  @Test
  void shouldNameTheSourcesAndEpochsEachResultMerges() {
    WindowMerger m = new WindowMerger(3, 0, SPEC);
    m.accept(partial(2, 4, 1, "k", 1));
    m.accept(partial(0, 1, 2, "k", 2, 3));
    m.accept(partial(0, 1, 1, "other", 9));
    for (int s = 0; s < 3; s++) {
      m.accept(new Watermark(s, s == 2 ? 4 : 1, 10_000, false));
    }

    List<FinalResult> out = advance(m);

    FinalResult k = out.stream().filter(r -> r.key().equals("k")).findFirst().orElseThrow();
    assertThat(k.sources().partitions()).containsExactly(0, 2);
    assertThat(k.sources().epochs()).containsExactly(1L, 4L);
    FinalResult other = out.stream().filter(r -> r.key().equals("other")).findFirst().orElseThrow();
    assertThat(other.sources().partitions()).containsExactly(0);
  }

  @Test
  void shouldReplaceNotAddWhenPartialIsReplayed() {
    WindowMerger m = new WindowMerger(1, 0, SPEC);
    m.accept(partial(0, 1, 1, "k", 5));
    m.accept(partial(0, 1, 1, "k", 5));
    m.accept(new Watermark(0, 1, 10_000, false));
    assertThat(advance(m))
        .singleElement()
        .satisfies(r -> assertThat(r.aggregate().count()).isEqualTo(1));
  }

  @Test
  void shouldEmitRevisionWhenChangedPartialArrivesWithinLateness() {
    WindowMerger m = new WindowMerger(1, 5_000, SPEC);
    m.accept(partial(0, 1, 1, "k", 5));
    m.accept(new Watermark(0, 1, 10_000, false));
    assertThat(advance(m)).singleElement().extracting(FinalResult::revision).isEqualTo(0);
    m.accept(partial(0, 1, 2, "k", 5, 6));
    m.accept(new Watermark(0, 1, 11_000, false));
    assertThat(advance(m))
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.revision()).isEqualTo(1);
              assertThat(r.aggregate().count()).isEqualTo(2);
            });
    m.accept(partial(0, 1, 2, "k", 5, 6)); // same content again: no revision
    m.accept(new Watermark(0, 1, 12_000, false));
    assertThat(advance(m)).isEmpty();
    m.accept(new Watermark(0, 1, 15_000, false));
    advance(m);
    m.accept(partial(0, 1, 3, "k", 5, 6, 7));
    assertThat(m.latePartials()).as("after lateness the window is gone").isEqualTo(1);
  }

  @Test
  void shouldRefusePartialsFromOlderEpochOrVersion() {
    WindowMerger m = new WindowMerger(1, 0, SPEC);
    m.accept(partial(0, 2, 1, "k", 5));
    m.accept(partial(0, 1, 9, "k", 5, 5, 5)); // zombie of an older epoch
    m.accept(new Watermark(0, 2, 10_000, false));
    assertThat(advance(m))
        .singleElement()
        .satisfies(r -> assertThat(r.aggregate().count()).isEqualTo(1));
    assertThat(m.stalePartials()).isEqualTo(1);
  }

  @Test
  void shouldProduceSameBytesWhateverTheArrivalOrder() {
    double[] a = new double[300];
    double[] b = new double[300];
    double[] c = new double[300];
    for (int i = 0; i < 300; i++) {
      a[i] = i * 1.7;
      b[i] = 1000 - i * 0.3;
      c[i] = (i * 7919) % 500;
    }
    List<Partial> partials =
        List.of(partial(0, 1, 1, "k", a), partial(1, 1, 1, "k", b), partial(2, 1, 1, "k", c));
    byte[] reference = null;
    int[][] orders = {{0, 1, 2}, {2, 1, 0}, {1, 2, 0}, {2, 0, 1}};
    for (int[] order : orders) {
      WindowMerger m = new WindowMerger(3, 0, SPEC);
      for (int i : order) {
        m.accept(partials.get(i));
      }
      for (int s = 0; s < 3; s++) {
        m.accept(new Watermark(s, 1, 10_000, false));
      }
      byte[] bytes = AggregateCodec.encode(advance(m).get(0).aggregate());
      if (reference == null) {
        reference = bytes;
      }
      assertThat(Arrays.equals(bytes, reference)).as("order %s", Arrays.toString(order)).isTrue();
    }
  }

  /** Snapshot, restore, replay the messages since the snapshot: the same results follow. */
  @Test
  void shouldEmitSameResultsWhenRestoredAndReplayedFromSnapshot() {
    for (long seed = 1; seed <= 30; seed++) {
      SplittableRandom rnd = new SplittableRandom(seed);
      List<Object> messages = new ArrayList<>();
      long[] wm = new long[3];
      int[] counts = new int[3 * 4 * 6];
      for (int i = 0; i < 400; i++) {
        int source = rnd.nextInt(3);
        if (rnd.nextInt(4) == 0) {
          wm[source] += rnd.nextLong(0, 4_000);
          messages.add(new Watermark(source, 1, wm[source], false));
        } else {
          int key = rnd.nextInt(4);
          int window = rnd.nextInt(6);
          int c = ++counts[(source * 4 + key) * 6 + window];
          double[] values = new double[c];
          for (int v = 0; v < c; v++) {
            values[v] = v;
          }
          Aggregate a = Aggregate.empty(SPEC);
          for (double v : values) {
            a.update(new double[] {v}, null, null, v);
          }
          messages.add(
              new Partial(
                  source,
                  1,
                  c,
                  "k" + key,
                  window * 10_000L,
                  window * 10_000L + 10_000,
                  AggregateCodec.encode(a)));
        }
      }
      int cut = rnd.nextInt(messages.size());
      WindowMerger whole = new WindowMerger(3, 5_000, SPEC);
      WindowMerger first = new WindowMerger(3, 5_000, SPEC);
      List<String> expected = new ArrayList<>();
      List<String> actual = new ArrayList<>();
      WindowMerger current = first;
      int replayFrom = Math.max(0, cut - rnd.nextInt(20)); // the snapshot's offset lags a little
      byte[] snapshot = null;
      for (int i = 0; i < messages.size(); i++) {
        if (i == replayFrom) {
          snapshot = current.snapshot();
        }
        if (i == cut) {
          current = WindowMerger.restore(snapshot, 3, 5_000, SPEC);
          for (int j = replayFrom; j < cut; j++) {
            apply(current, messages.get(j));
            current.advance(r -> {});
          }
        }
        apply(whole, messages.get(i));
        apply(current, messages.get(i));
        whole.advance(
            r -> expected.add(r.key() + "@" + r.windowStartMs() + "=" + r.aggregate().count()));
        current.advance(
            r -> actual.add(r.key() + "@" + r.windowStartMs() + "=" + r.aggregate().count()));
      }
      // results after the cut: the restored merger may repeat results emitted between the
      // snapshot and the cut (same values), never different ones
      Map<String, String> lastExpected = new HashMap<>();
      Map<String, String> lastActual = new HashMap<>();
      expected.forEach(r -> lastExpected.put(r.substring(0, r.indexOf('=')), r));
      actual.forEach(r -> lastActual.put(r.substring(0, r.indexOf('=')), r));
      assertThat(lastActual).as("seed %d", seed).isEqualTo(lastExpected);
    }
  }

  private static void apply(WindowMerger m, Object message) {
    if (message instanceof Partial p) {
      m.accept(p);
    } else {
      m.accept((Watermark) message);
    }
  }
}

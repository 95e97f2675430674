package dev.skewer.node.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.core.checkpoint.CapturedState;
import dev.skewer.core.checkpoint.CheckpointFormatException;
import dev.skewer.core.job.TumblingWindow;
import dev.skewer.core.window.SliceAssigner;
import dev.skewer.core.wire.Partial;
import dev.skewer.sketches.Aggregate;
import dev.skewer.sketches.AggregateCodec;
import dev.skewer.sketches.SketchSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

class PartitionAggregatorTest {

  private static final long SIZE = 10_000;
  private static final SketchSpec SPEC = SketchSpec.countsOnly(1);
  private static final SliceAssigner WINDOWS =
      SliceAssigner.of(new TumblingWindow(Duration.ofMillis(SIZE)));

  private static PartitionAggregator aggregator(long delayMs, long latenessMs) {
    return new PartitionAggregator(3, 7, WINDOWS, delayMs, latenessMs, SPEC);
  }

  private static PartitionAggregator.Outcome update(
      PartitionAggregator a, String key, long t, double v) {
    return a.update(key, t, new double[] {v}, null, null, Double.NaN);
  }

  private static List<Partial> emit(PartitionAggregator a) {
    List<Partial> out = new ArrayList<>();
    a.emit(out::add);
    return out;
  }

  @Test
  void shouldEmitNothingWhileWindowIsOpen() {
    PartitionAggregator a = aggregator(2_000, 0);
    update(a, "k", 1_000, 1);
    update(a, "k", 11_999, 1); // watermark 9_999 < end 10_000
    assertThat(emit(a)).isEmpty();
    assertThat(a.watermarkMs()).isEqualTo(9_999);
  }

  @Test
  void shouldEmitPartialWhenWatermarkReachesWindowEnd() {
    PartitionAggregator a = aggregator(2_000, 0);
    update(a, "k", 1_000, 1.5);
    update(a, "k", 2_000, 2.5);
    update(a, "j", 3_000, 4);
    update(a, "k", 12_000, 1); // watermark 10_000 == end of [0, 10_000)
    List<Partial> out = emit(a);
    assertThat(out).hasSize(2);
    Map<String, Partial> byKey = new HashMap<>();
    out.forEach(p -> byKey.put(p.key(), p));
    Partial k = byKey.get("k");
    assertThat(k.sourcePartition()).isEqualTo(3);
    assertThat(k.epoch()).isEqualTo(7);
    assertThat(k.version()).as("version = events folded in").isEqualTo(2);
    assertThat(k.sliceStartMs()).isZero();
    assertThat(k.sliceEndMs()).isEqualTo(SIZE);
    Aggregate agg = AggregateCodec.decode(k.aggregate());
    assertThat(agg.count()).isEqualTo(2);
    assertThat(agg.sum(0)).isEqualTo(4.0);
    assertThat(agg.min(0)).isEqualTo(1.5);
    assertThat(agg.max(0)).isEqualTo(2.5);
    assertThat(emit(a)).as("nothing changed: no re-emission").isEmpty();
  }

  @Test
  void shouldRouteEventLateWhenWindowEndPlusLatenessReachedWatermark() {
    PartitionAggregator a = aggregator(0, 5_000);
    update(a, "k", 1_000, 1);
    update(a, "k", 15_000, 1); // watermark 15_000 = end 10_000 + lateness 5_000
    assertThat(update(a, "k", 9_999, 1)).isEqualTo(PartitionAggregator.Outcome.LATE);
    assertThat(update(a, "k", 10_000, 1)).isEqualTo(PartitionAggregator.Outcome.ACCEPTED);
  }

  @Test
  void shouldReemitWithHigherVersionWhenLateEventWithinLateness() {
    PartitionAggregator a = aggregator(0, 5_000);
    update(a, "k", 1_000, 1);
    update(a, "k", 12_000, 1);
    List<Partial> first = emit(a);
    assertThat(first).singleElement().extracting(Partial::version).isEqualTo(1L);

    assertThat(update(a, "k", 2_000, 1)).isEqualTo(PartitionAggregator.Outcome.ACCEPTED);
    List<Partial> second = emit(a);
    assertThat(second)
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.version()).isEqualTo(2);
              assertThat(AggregateCodec.decode(p.aggregate()).count()).isEqualTo(2);
            });
  }

  @Test
  void shouldDropWindowStateOnceLatenessHasPassed() {
    PartitionAggregator a = aggregator(0, 5_000);
    update(a, "k", 1_000, 1);
    update(a, "k", 14_999, 1);
    emit(a);
    assertThat(a.openSlices()).isEqualTo(2);
    update(a, "k", 15_000, 1);
    emit(a);
    assertThat(a.openSlices()).isEqualTo(1);
    assertThat(a.openKeySlices()).isEqualTo(1);
  }

  @Test
  void shouldEmitEveryOpenWindowWhenFinalizedAtEndOfInputWithoutMakingLaterEventsLate() {
    PartitionAggregator a = aggregator(2_000, 0);
    update(a, "k", 1_000, 1);
    update(a, "k", 25_000, 1);
    emit(a);
    a.finalizeOpenSlices();
    List<Partial> out = emit(a);
    assertThat(out).extracting(Partial::sliceStartMs).containsExactly(20_000L);
    assertThat(a.watermark(true).closeMs()).isEqualTo(30_000);
    assertThat(a.watermark(true).watermarkMs()).isEqualTo(23_000);

    // an event after the pause revises the closed window instead of being late
    assertThat(update(a, "k", 29_000, 1)).isEqualTo(PartitionAggregator.Outcome.ACCEPTED);
    assertThat(emit(a))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.sliceStartMs()).isEqualTo(20_000);
              assertThat(p.version()).isEqualTo(2);
            });
  }

  @Test
  void shouldJudgeLatenessAgainstTheAdoptedFrontierWhenItIsAhead() {
    // given a partition whose own watermark is far behind the cluster's (it was idle)
    PartitionAggregator a = aggregator(0, 5_000);
    update(a, "k", 1_000, 1);
    a.adoptFrontier(40_000);

    // then events of windows past lateness by the frontier are late, later ones are not
    assertThat(update(a, "k", 20_000, 1)).isEqualTo(PartitionAggregator.Outcome.LATE);
    assertThat(update(a, "k", 36_000, 1)).isEqualTo(PartitionAggregator.Outcome.ACCEPTED);
    assertThat(a.watermark(false).watermarkMs()).isEqualTo(40_000);
    a.adoptFrontier(10_000);
    assertThat(a.effectiveWatermarkMs()).as("never goes back").isEqualTo(40_000);

    // and both windows, closed by the frontier, are emitted; the first one, past lateness, is
    // dropped after it is sent
    assertThat(emit(a)).extracting(Partial::sliceStartMs).containsExactly(0L, 30_000L);
    assertThat(a.openSlices()).isEqualTo(1);
  }

  @Test
  void shouldSendOpenSlicesWhenFlushedBeforeIdleness() {
    PartitionAggregator a = aggregator(2_000, 0);
    update(a, "k", 1_000, 1);
    update(a, "j", 3_000, 1);
    assertThat(emit(a)).isEmpty();
    List<Partial> out = new ArrayList<>();
    assertThat(a.flushOpenSlices(out::add)).isEqualTo(2);
    assertThat(out).extracting(Partial::key).containsExactlyInAnyOrder("k", "j");
    assertThat(a.flushOpenSlices(out::add)).as("nothing changed since").isZero();
    assertThat(a.openSlices()).as("still open").isEqualTo(1);
  }

  @Test
  void shouldNeverMoveWatermarkBack() {
    PartitionAggregator a = aggregator(1_000, 0);
    update(a, "k", 50_000, 1);
    update(a, "k", 49_500, 1);
    assertThat(a.watermarkMs()).isEqualTo(49_000);
  }

  /**
   * Random disordered streams against a brute-force model of the same contract: the latest Partial
   * per (key, window) holds exactly the accepted events, and an event is late exactly when its
   * window end + lateness is at or below the watermark before it.
   */
  @Test
  void shouldMatchBruteForceModelOverManySeeds() {
    for (long seed = 1; seed <= 200; seed++) {
      SplittableRandom rnd = new SplittableRandom(seed);
      long delay = rnd.nextLong(0, 3_000);
      long lateness = rnd.nextLong(0, 2) == 0 ? 0 : rnd.nextLong(1, 8_000);
      PartitionAggregator a = aggregator(delay, lateness);
      Map<String, long[]> expected = new HashMap<>(); // key@start -> {count, sum}
      Map<String, Partial> latest = new HashMap<>();
      long maxT = Long.MIN_VALUE;
      long t = 0;
      int n = rnd.nextInt(50, 2_000);
      for (int i = 0; i < n; i++) {
        t += rnd.nextLong(0, 200);
        long eventTime = t - rnd.nextLong(0, 6_000); // disorder, sometimes beyond the delay
        String key = "k" + rnd.nextInt(5);
        long v = rnd.nextLong(1, 100);
        long wm = maxT == Long.MIN_VALUE ? Long.MIN_VALUE : maxT - delay;
        long start = Math.floorDiv(eventTime, SIZE) * SIZE;
        boolean late = wm != Long.MIN_VALUE && start + SIZE + lateness <= wm;
        PartitionAggregator.Outcome outcome = update(a, key, eventTime, v);
        assertThat(outcome)
            .as("seed %d event %d", seed, i)
            .isEqualTo(
                late ? PartitionAggregator.Outcome.LATE : PartitionAggregator.Outcome.ACCEPTED);
        if (!late) {
          long[] c = expected.computeIfAbsent(key + "@" + start, x -> new long[2]);
          c[0]++;
          c[1] += v;
          maxT = Math.max(maxT, eventTime);
        }
        if (rnd.nextInt(10) == 0) {
          emitInto(a, latest);
        }
      }
      a.finalizeOpenSlices();
      emitInto(a, latest);
      assertThat(latest.keySet()).as("seed %d windows", seed).isEqualTo(expected.keySet());
      for (Map.Entry<String, long[]> e : expected.entrySet()) {
        Aggregate agg = AggregateCodec.decode(latest.get(e.getKey()).aggregate());
        assertThat(agg.count()).as("seed %d %s count", seed, e.getKey()).isEqualTo(e.getValue()[0]);
        assertThat(agg.sum(0))
            .as("seed %d %s sum", seed, e.getKey())
            .isEqualTo((double) e.getValue()[1]);
      }
    }
  }

  /**
   * Snapshot at a random point, restore, continue: the Partials after the restore equal, in content
   * and version, those of the uninterrupted run over the same events.
   */
  @Test
  void shouldReproduceSamePartialsWhenRestoredFromSnapshotMidStream() {
    SketchSpec spec = SketchSpec.countsOnly(1).withDistinct(14, 25).withQuantiles(100);
    for (long seed = 1; seed <= 50; seed++) {
      SplittableRandom rnd = new SplittableRandom(seed);
      int n = rnd.nextInt(200, 3_000);
      long[] times = new long[n];
      String[] keys = new String[n];
      long t = 0;
      for (int i = 0; i < n; i++) {
        t += rnd.nextLong(0, 100);
        times[i] = t - rnd.nextLong(0, 4_000);
        keys[i] = "k" + rnd.nextInt(8);
      }
      int cut = rnd.nextInt(n);
      PartitionAggregator whole = new PartitionAggregator(0, 1, WINDOWS, 1_000, 3_000, spec);
      PartitionAggregator first = new PartitionAggregator(0, 1, WINDOWS, 1_000, 3_000, spec);
      List<String> expected = new ArrayList<>();
      List<String> actual = new ArrayList<>();
      PartitionAggregator current = first;
      for (int i = 0; i < n; i++) {
        if (i == cut) {
          current.emit(p -> actual.add(describe(p)));
          whole.emit(p -> expected.add(describe(p)));
          byte[] snapshot = current.snapshot();
          current = PartitionAggregator.restore(snapshot, 2, WINDOWS, 1_000, 3_000, spec);
          assertThat(current.snapshot()).as("seed %d snapshot is stable", seed).isEqualTo(snapshot);
        }
        double v = (i % 97) / 3.0;
        String user = "u" + (i % 31);
        whole.update(keys[i], times[i], new double[] {v}, user, null, v);
        current.update(keys[i], times[i], new double[] {v}, user, null, v);
        if (i % 50 == 49) {
          whole.emit(p -> expected.add(describe(p)));
          current.emit(p -> actual.add(describe(p)));
        }
      }
      whole.finalizeOpenSlices();
      current.finalizeOpenSlices();
      whole.emit(p -> expected.add(describe(p)));
      current.emit(p -> actual.add(describe(p)));
      assertThat(sorted(actual)).as("seed %d", seed).isEqualTo(sorted(expected));
    }
  }

  @Test
  void shouldEncodeACapturedStateAsOfItsCaptureWhateverTheFrontierDoesMeanwhile() {
    PartitionAggregator a = aggregator(0, 0);
    update(a, "k", 1_000, 1);
    update(a, "j", 12_000, 2);
    byte[] atCapture = a.snapshot();
    byte[] adopting = a.captureAdopting(50_000).encode();

    CapturedState captured = a.capture();
    a.adoptFrontier(40_000); // a stage timer may move the frontier while the state is encoded

    assertThat(captured.encode()).isEqualTo(atCapture);
    assertThat(a.frontierMs()).isEqualTo(40_000);
    PartitionAggregator restored = PartitionAggregator.restore(adopting, 2, WINDOWS, 0, 0, SPEC);
    assertThat(restored.frontierMs()).isEqualTo(50_000);
  }

  @Test
  void shouldRefuseCorruptSnapshotWithCheckpointFormatException() {
    PartitionAggregator a = aggregator(0, 0);
    update(a, "k", 1_000, 1);
    byte[] snapshot = a.snapshot();
    for (int cut = 0; cut < snapshot.length; cut++) {
      byte[] truncated = Arrays.copyOf(snapshot, cut);
      Assertions.assertThatThrownBy(
              () -> PartitionAggregator.restore(truncated, 1, WINDOWS, 0, 0, SPEC))
          .isInstanceOf(CheckpointFormatException.class);
    }
  }

  private static String describe(Partial p) {
    return p.key()
        + "@"
        + p.sliceStartMs()
        + " v"
        + p.version()
        + " "
        + HexFormat.of().formatHex(p.aggregate());
  }

  private static List<String> sorted(List<String> xs) {
    List<String> s = new ArrayList<>(xs);
    Collections.sort(s);
    return s;
  }

  private static void emitInto(PartitionAggregator a, Map<String, Partial> latest) {
    a.emit(
        p -> {
          Partial held = latest.get(p.key() + "@" + p.sliceStartMs());
          assertThat(held == null || held.version() < p.version())
              .as("versions increase per (key, window)")
              .isTrue();
          latest.put(p.key() + "@" + p.sliceStartMs(), p);
        });
  }
}

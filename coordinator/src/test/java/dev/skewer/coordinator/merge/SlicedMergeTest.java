package dev.skewer.coordinator.merge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.core.job.WindowSpec;
import dev.skewer.core.window.WindowShape;
import dev.skewer.core.wire.Partial;
import dev.skewer.core.wire.Watermark;
import dev.skewer.sketches.Aggregate;
import dev.skewer.sketches.AggregateCodec;
import dev.skewer.sketches.SketchSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

class SlicedMergeTest {

  private static final SketchSpec SPEC = SketchSpec.countsOnly(1);
  private static final WindowShape.Session GAP_1S = new WindowShape.Session(1_000); // slice 250 ms
  private static final WindowShape.Hopping HOP = new WindowShape.Hopping(3_000, 1_000);

  private static Partial slice(
      WindowShape shape, int source, String key, long sliceStart, long sliceMs, long... times) {
    Aggregate a = Aggregate.empty(SPEC);
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    for (long t : times) {
      a.update(new double[] {1}, null, null, Double.NaN);
      first = Math.min(first, t);
      last = Math.max(last, t);
    }
    return new Partial(
        source,
        1,
        times.length,
        key,
        sliceStart,
        sliceStart + sliceMs,
        AggregateCodec.encode(a),
        shape,
        first,
        last,
        new String[] {"d" + first});
  }

  private static List<FinalResult> advanceTo(WindowMerger m, long watermarkMs) {
    m.accept(new Watermark(0, 1, watermarkMs, false));
    List<FinalResult> out = new ArrayList<>();
    m.advance(out::add);
    return out;
  }

  @Test
  void shouldSupersedeTheLaterSessionWhenALateEventBridgesTwoClosedSessions() {
    // given two closed sessions of u1: [0, 100] and [1500, 1500], gap 1 s
    WindowMerger m = new WindowMerger(1, 5_000, SPEC);
    m.accept(slice(GAP_1S, 0, "u1", 0, 250, 0, 100));
    m.accept(slice(GAP_1S, 0, "u1", 1_500, 250, 1_500));
    List<FinalResult> finals = advanceTo(m, 2_500);
    assertThat(finals)
        .extracting(FinalResult::windowStartMs, FinalResult::windowEndMs, FinalResult::revision)
        .containsExactly(Tuple.tuple(0L, 101L, 0), Tuple.tuple(1_500L, 1_501L, 0));

    // when a late event at 800 bridges them (800 - 100 < 1000, 1500 - 800 < 1000)
    m.accept(slice(GAP_1S, 0, "u1", 750, 250, 800));
    List<FinalResult> revised = advanceTo(m, 2_600);

    // then the merged session is revision 1 of u1@0, and u1@1500 is superseded by it
    assertThat(revised).hasSize(2);
    FinalResult merged = revised.get(0);
    assertThat(merged.windowStartMs()).isZero();
    assertThat(merged.windowEndMs()).isEqualTo(1_501); // half-open: last event + 1
    assertThat(merged.aggregate().count()).isEqualTo(4);
    assertThat(merged.revision()).isEqualTo(1);
    assertThat(merged.superseded()).isFalse();
    assertThat(merged.dimensions()).containsExactly("d0");
    FinalResult gone = revised.get(1);
    assertThat(gone.windowStartMs()).isEqualTo(1_500);
    assertThat(gone.superseded()).isTrue();
    assertThat(gone.supersededByStartMs()).isZero();
    assertThat(gone.aggregate().count()).isZero();
    assertThat(gone.revision()).isEqualTo(1);
    assertThat(advanceTo(m, 2_700)).isEmpty();
  }

  @Test
  void shouldNotCloseASessionBeforeTheSliceBoundaryAfterEndPlusGap() {
    WindowMerger m = new WindowMerger(1, 0, SPEC);
    m.accept(slice(GAP_1S, 0, "u1", 0, 250, 10));
    assertThat(advanceTo(m, 1_009)).isEmpty();
    assertThat(advanceTo(m, 1_249)).isEmpty(); // 10 + gap = 1010: next slice boundary is 1250
    assertThat(advanceTo(m, 1_250)).hasSize(1);
    // no lateness: held two gaps and three slices more (what a node may still send near it)
    assertThat(m.heldPartials()).isEqualTo(1);
    assertThat(advanceTo(m, 3_999)).isEmpty();
    assertThat(m.heldPartials()).isEqualTo(1);
    assertThat(advanceTo(m, 4_000)).isEmpty();
    assertThat(m.heldPartials()).isZero();
  }

  @Test
  void shouldComposeEveryHoppingWindowFromItsSlicesAndReviseAllTheWindowsALateSliceTouches() {
    // given 3 s windows every 1 s: slices of 1 s
    WindowMerger m =
        new WindowMerger(
            WindowSpec.hopping(Duration.ofSeconds(3), Duration.ofSeconds(1)), 1, 10_000, SPEC);
    m.accept(slice(HOP, 0, "k", 0, 1_000, 0, 1));
    m.accept(slice(HOP, 0, "k", 2_000, 1_000, 2_000));
    List<FinalResult> finals = advanceTo(m, 4_000);
    // the windows ending at 1000..4000 contain slice 0 or slice 2000 (the one ending at 5000 is
    // open)
    assertThat(finals)
        .extracting(FinalResult::windowEndMs)
        .containsExactly(1_000L, 2_000L, 3_000L, 4_000L);
    assertThat(finals).extracting(r -> r.aggregate().count()).containsExactly(2L, 2L, 3L, 1L);

    // when slice [1000, 2000) arrives late
    m.accept(slice(HOP, 0, "k", 1_000, 1_000, 1_500));
    List<FinalResult> revised = advanceTo(m, 4_000);

    // then the closed windows containing it are revised, the others untouched
    assertThat(revised)
        .extracting(FinalResult::windowEndMs, FinalResult::revision, r -> r.aggregate().count())
        .containsExactly(
            Tuple.tuple(2_000L, 1, 3L), Tuple.tuple(3_000L, 1, 4L), Tuple.tuple(4_000L, 1, 2L));
  }

  @Test
  void shouldRefusePartialsOfAnotherShape() {
    WindowMerger m = new WindowMerger(1, 0, SPEC);
    m.accept(slice(GAP_1S, 0, "u1", 0, 250, 10));
    m.accept(slice(HOP, 0, "k", 0, 1_000, 10));
    assertThat(m.mismatchedPartials()).isEqualTo(1);
  }

  @Test
  void shouldContinueIdenticallyAfterSnapshotAndRestore() {
    for (WindowShape shape : List.of(GAP_1S, HOP)) {
      long sliceMs = shape == HOP ? 1_000 : 250;
      WindowMerger a = new WindowMerger(1, 2_000, SPEC);
      a.accept(slice(shape, 0, "u1", 0, sliceMs, 0, 100));
      a.accept(slice(shape, 0, "u1", 3 * sliceMs, sliceMs, 3 * sliceMs + 1));
      List<FinalResult> first = advanceTo(a, 2 * sliceMs);
      WindowMerger b = WindowMerger.restore(a.snapshot(), 1, 2_000, SPEC);
      assertThat(b.heldPartials()).isEqualTo(a.heldPartials());
      List<String> fromA = new ArrayList<>();
      List<String> fromB = new ArrayList<>();
      for (WindowMerger m : List.of(a, b)) {
        List<String> out = m == a ? fromA : fromB;
        m.accept(slice(shape, 0, "u1", sliceMs, sliceMs, sliceMs + 5));
        for (FinalResult r : advanceTo(m, 20 * sliceMs)) {
          out.add(
              r.key()
                  + "@"
                  + r.windowStartMs()
                  + ".."
                  + r.windowEndMs()
                  + " n="
                  + r.aggregate().count()
                  + " rev="
                  + r.revision()
                  + " sup="
                  + r.supersededByStartMs());
        }
      }
      assertThat(fromB).as("%s after %s", shape, first).isEqualTo(fromA).isNotEmpty();
    }
  }
}

package dev.skewer.node.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.core.window.HoppingSliceAssigner;
import dev.skewer.core.window.SessionSliceAssigner;
import dev.skewer.core.window.SliceAssigner;
import dev.skewer.core.window.WindowShape;
import dev.skewer.core.wire.Partial;
import dev.skewer.sketches.SketchSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SlicedPartitionAggregatorTest {

  private static final SketchSpec SPEC = SketchSpec.countsOnly(1);
  private static final double[] ONE = {1};

  @Test
  void shouldCountAHoppingEventInEveryWindowNotPastLatenessAndInNoneWhenAllAre() {
    // given 60 s windows every 1 s: 1 s slices, delay 0, lateness 0
    PartitionAggregator a =
        new PartitionAggregator(0, 1, new HoppingSliceAssigner(60_000, 1_000), 0, 0, SPEC);
    a.update("k", 10_500, ONE, null, null, Double.NaN);
    assertThat(a.openKeySlices()).isEqualTo(1); // one slice, not 60 windows

    // when the watermark passes the end of the earliest window containing [10 s, 11 s)
    a.update("k", 11_000, ONE, null, null, Double.NaN);
    List<Partial> out = new ArrayList<>();
    a.emit(out::add);

    // then that slice is emitted with the hopping shape and kept for its later windows
    assertThat(out)
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.shape()).isEqualTo(new WindowShape.Hopping(60_000, 1_000));
              assertThat(p.sliceStartMs()).isEqualTo(10_000);
              assertThat(p.sliceEndMs()).isEqualTo(11_000);
              assertThat(p.firstEventMs()).isEqualTo(10_500);
              assertThat(p.firstWindowEndMs()).isEqualTo(11_000);
            });

    // and a later event of that slice counts from the first window not past lateness on
    assertThat(a.update("k", 10_999, ONE, null, null, Double.NaN))
        .isEqualTo(PartitionAggregator.Outcome.ACCEPTED);
    a.update("k", 12_500, ONE, null, null, Double.NaN); // watermark 12.5 s
    out.clear();
    a.emit(out::add);
    assertThat(out)
        .filteredOn(p -> p.sliceStartMs() == 10_000)
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.firstWindowEndMs()).isEqualTo(12_000);
              assertThat(p.version()).isEqualTo(1);
              assertThat(p.firstEventMs()).isEqualTo(10_999);
            });

    // once the slice's last window [10 s, 70 s) is past lateness, its events are late
    a.update("k", 70_000, ONE, null, null, Double.NaN);
    a.emit(p -> {});
    assertThat(a.update("k", 10_999, ONE, null, null, Double.NaN))
        .isEqualTo(PartitionAggregator.Outcome.LATE);
  }

  @Test
  void shouldAcceptASessionEventThatJoinsAnOpenSessionEvenWhenItsOwnSliceIsPastLateness() {
    // given gap 1 s (250 ms slices), delay 0, lateness 0, and a session 1 s .. 9 s still growing
    PartitionAggregator a =
        new PartitionAggregator(0, 1, new SessionSliceAssigner(1_000), 0, 0, SPEC);
    for (long t = 1_000; t <= 9_000; t += 500) {
      a.update("u", t, ONE, null, null, Double.NaN);
    }
    a.emit(p -> {});

    // then an old event inside the session is accepted, an isolated one long past is late
    assertThat(a.update("u", 2_100, ONE, null, null, Double.NaN))
        .isEqualTo(PartitionAggregator.Outcome.ACCEPTED);
    assertThat(a.update("v", 2_100, ONE, null, null, Double.NaN))
        .isEqualTo(PartitionAggregator.Outcome.LATE);
    // and one that would only start a session of its own not yet past lateness is accepted
    assertThat(a.update("v", 7_900, ONE, null, null, Double.NaN))
        .isEqualTo(PartitionAggregator.Outcome.ACCEPTED);
  }

  @Test
  void shouldCarryTheExtentAndTheEarliestEventsDimensionsOfASessionSlice() {
    PartitionAggregator a =
        new PartitionAggregator(2, 1, new SessionSliceAssigner(1_000), 0, 0, SPEC);
    a.update("u", 120, ONE, null, null, Double.NaN, new String[] {"slots", "web"});
    a.update("u", 101, ONE, null, null, Double.NaN, new String[] {"poker", "app"});
    a.update("u", 240, ONE, null, null, Double.NaN, new String[] {"dice", null});
    a.finalizeOpenSlices();
    List<Partial> out = new ArrayList<>();
    a.emit(out::add);
    assertThat(out)
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.firstEventMs()).isEqualTo(101);
              assertThat(p.lastEventMs()).isEqualTo(240);
              assertThat(p.dimensions()).containsExactly("poker", "app");
              assertThat(p.version()).isEqualTo(3);
            });
  }

  @Test
  void shouldEmitTheSamePartialsAfterSnapshotRestoreForEveryShape() {
    for (SliceAssigner windows :
        List.of(new HoppingSliceAssigner(6_000, 2_000), new SessionSliceAssigner(800))) {
      Random random = new Random(3);
      PartitionAggregator a = new PartitionAggregator(0, 1, windows, 200, 1_000, SPEC);
      List<Partial> fromA = new ArrayList<>();
      List<Partial> fromB = new ArrayList<>();
      PartitionAggregator b = null;
      long now = 0;
      for (int i = 0; i < 5_000; i++) {
        now += random.nextInt(10);
        long t = now - random.nextInt(random.nextInt(20) == 0 ? 2_000 : 200);
        String key = "k" + random.nextInt(20);
        String[] dims = {"d" + t % 3};
        a.update(key, t, ONE, null, null, Double.NaN, dims);
        if (b != null) {
          b.update(key, t, ONE, null, null, Double.NaN, dims);
        }
        if (i % 100 == 99) {
          a.emit(fromA::add);
          if (b != null) {
            b.emit(fromB::add);
          }
        }
        if (i == 2_499) {
          b = PartitionAggregator.restore(a.snapshot(), 1, windows, 200, 1_000, SPEC);
          fromA.clear();
        }
      }
      assertThat(fromB).as("%s", windows).isEqualTo(fromA).isNotEmpty();
    }
  }
}

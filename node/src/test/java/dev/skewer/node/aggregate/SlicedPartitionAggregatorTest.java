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
  void shouldUpdateOneSliceAndKeepItOnlyUntilItsEarliestWindowIsPastLateness() {
    // given 60 s windows every 1 s: 1 s slices, delay 0, lateness 0
    PartitionAggregator a =
        new PartitionAggregator(0, 1, new HoppingSliceAssigner(60_000, 1_000), 0, 0, SPEC);
    a.update("k", 10_500, ONE, null, null, Double.NaN);
    assertThat(a.openKeySlices()).isEqualTo(1); // one slice, not 60 windows

    // when the watermark passes the end of the earliest window containing [10 s, 11 s)
    a.update("k", 11_000, ONE, null, null, Double.NaN);
    List<Partial> out = new ArrayList<>();
    a.emit(out::add);

    // then that slice is emitted with the hopping shape and dropped; later events in it are late
    assertThat(out)
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.shape()).isEqualTo(new WindowShape.Hopping(60_000, 1_000));
              assertThat(p.sliceStartMs()).isEqualTo(10_000);
              assertThat(p.sliceEndMs()).isEqualTo(11_000);
              assertThat(p.firstEventMs()).isEqualTo(10_500);
            });
    assertThat(a.openKeySlices()).isEqualTo(1);
    assertThat(a.update("k", 10_999, ONE, null, null, Double.NaN))
        .isEqualTo(PartitionAggregator.Outcome.LATE);
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

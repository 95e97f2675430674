package dev.skewer.coordinator.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skewer.core.wire.Partial;
import dev.skewer.sketches.Aggregate;
import dev.skewer.sketches.AggregateCodec;
import dev.skewer.sketches.SketchSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/**
 * {@link SourcePartials#merged} returns a lone held aggregate as decoded instead of merging it into
 * an empty one: every estimate a result is written from must be what the merge would have given.
 */
class SourcePartialsTest {

  // every sketch on, small enough that the HLL turns dense, the t-digest leaves its exact mode
  // and the heavy hitters overflow their table within a few thousand events
  private static final SketchSpec SPEC =
      SketchSpec.countsOnly(2)
          .withDistinct(10, 20)
          .withFrequencies(0.01, 0.01, 8)
          .withQuantiles(50);
  private static final double[] QUANTILES = {0, 0.01, 0.25, 0.5, 0.9, 0.99, 0.999, 1};

  @Property(tries = 80)
  void shouldGiveWhatMergingIntoAnEmptyAggregateGivesWhenOneSourceIsHeld(
      @ForAll @LongRange(min = 0, max = 1_000_000) long seed,
      @ForAll @IntRange(min = 0, max = 4_000) int events,
      @ForAll @IntRange(min = 0, max = 7) int source) {
    // given one held Partial, from any source partition
    byte[] encoded = AggregateCodec.encode(randomAggregate(seed, events));
    SourcePartials held = new SourcePartials(4);
    held.offer(partial(source, encoded));

    // when
    Aggregate shortcut = held.merged(SPEC);
    Aggregate merged = Aggregate.empty(SPEC);
    merged.merge(AggregateCodec.decode(encoded));

    // then: the same encoding and the same estimates, read in the order a result writer reads them
    assertThat(AggregateCodec.encode(shortcut)).isEqualTo(AggregateCodec.encode(merged));
    assertThat(estimates(shortcut)).isEqualTo(estimates(merged));
  }

  @Test
  void shouldMergeEveryHeldSourceWhenMoreThanOneIsHeld() {
    Aggregate a = randomAggregate(1, 500);
    Aggregate b = randomAggregate(2, 700);
    SourcePartials held = new SourcePartials(2);
    held.offer(partial(1, AggregateCodec.encode(b)));
    held.offer(partial(0, AggregateCodec.encode(a)));

    Aggregate expected = Aggregate.empty(SPEC);
    expected.merge(a);
    expected.merge(b);
    assertThat(held.merged(SPEC).count()).isEqualTo(1_200);
    assertThat(AggregateCodec.encode(held.merged(SPEC))).isEqualTo(AggregateCodec.encode(expected));
  }

  @Test
  void shouldRefuseALoneHeldAggregateOfAnotherSpecAsAMergeWould() {
    SketchSpec other = SketchSpec.countsOnly(2).withDistinct(12, 20);
    SourcePartials held = new SourcePartials(1);
    held.offer(partial(0, AggregateCodec.encode(Aggregate.empty(other))));

    assertThatThrownBy(() -> held.merged(SPEC))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cannot merge aggregates with different specs")
        .hasMessageContaining("hllPrecision=12/10");
  }

  private static Partial partial(int source, byte[] aggregate) {
    return new Partial(source, 1, 1, "k", 0, 10_000, aggregate);
  }

  private static Aggregate randomAggregate(long seed, int events) {
    Random r = new Random(seed);
    Aggregate a = Aggregate.empty(SPEC);
    for (int i = 0; i < events; i++) {
      double[] numeric = {r.nextGaussian() * 100, r.nextInt(10) == 0 ? Double.NaN : r.nextInt(50)};
      a.update(
          numeric,
          "u" + r.nextInt(1 + events),
          "i" + (int) Math.abs(r.nextGaussian() * 20),
          r.nextDouble() * r.nextDouble() * 1_000);
    }
    return a;
  }

  /** What a result is written from, compared exactly (records and boxed doubles). */
  private static List<Object> estimates(Aggregate a) {
    List<Object> out =
        new ArrayList<>(List.of(a.count(), a.distinct(), a.heavyHitters(8), a.frequencyTotal()));
    for (int f = 0; f < SPEC.numericFields(); f++) {
      out.addAll(List.of(a.valueCount(f), a.sum(f), a.min(f), a.max(f)));
    }
    if (a.quantileCount() > 0) {
      out.addAll(List.of(a.quantiles(QUANTILES)));
    }
    return out;
  }
}

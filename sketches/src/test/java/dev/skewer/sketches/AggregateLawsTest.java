package dev.skewer.sketches;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.skewer.sketches.Events.Event;
import dev.skewer.sketches.codec.ByteSink;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * The laws of {@link Aggregate} stated in its javadoc: identity, and split/merge = whole for any
 * split into 1..16 parts merged in any order (which implies associativity and commutativity).
 */
class AggregateLawsTest {

  @Property(tries = 150)
  void shouldEqualWholeStreamWhenSplitsAreMergedInAnyOrder(
      @ForAll @LongRange(min = 0, max = 1_000_000) long seed,
      @ForAll @IntRange(min = 0, max = 1500) int length,
      @ForAll @IntRange(min = 1, max = 16) int parts,
      @ForAll @IntRange(min = 1, max = 40) int capacity,
      @ForAll @IntRange(min = 1, max = 3000) int distinctAlphabet) {
    // given
    SketchSpec spec = Events.smallSpec(2, capacity);
    List<Event> events = Events.stream(seed, length, spec, distinctAlphabet, 4 * capacity);
    Aggregate whole = Events.aggregate(spec, events);
    Random r = new Random(seed ^ 0x9E3779B97F4A7C15L);

    // when: random contiguous or interleaved split, then merge pairs picked at random
    List<Aggregate> pieces = split(spec, events, parts, r);
    while (pieces.size() > 1) {
      Aggregate a = pieces.remove(r.nextInt(pieces.size()));
      Aggregate b = pieces.remove(r.nextInt(pieces.size()));
      a.merge(b);
      pieces.add(a);
    }
    Aggregate merged = pieces.get(0);

    // then
    assertEquivalent(merged, whole, events);
  }

  @Property(tries = 60)
  void shouldBeUnchangedWhenMergedWithEmpty(
      @ForAll @LongRange(min = 0, max = 1_000_000) long seed,
      @ForAll @IntRange(min = 0, max = 800) int length) {
    SketchSpec spec = Events.smallSpec(1, 8);
    List<Event> events = Events.stream(seed, length, spec, 500, 40);
    Aggregate a = Events.aggregate(spec, events);
    byte[] before = AggregateCodec.encode(a);

    Aggregate left = Aggregate.empty(spec);
    left.merge(a);
    Aggregate right = Events.aggregate(spec, events);
    right.merge(Aggregate.empty(spec));

    assertThat(AggregateCodec.encode(left)).isEqualTo(before);
    assertThat(AggregateCodec.encode(right)).isEqualTo(before);
  }

  private static List<Aggregate> split(SketchSpec spec, List<Event> events, int parts, Random r) {
    List<Aggregate> pieces = new ArrayList<>();
    for (int i = 0; i < parts; i++) {
      pieces.add(Aggregate.empty(spec));
    }
    boolean interleaved = r.nextBoolean();
    int[] cuts = r.ints(parts - 1, 0, events.size() + 1).sorted().toArray();
    for (int i = 0; i < events.size(); i++) {
      int part;
      if (interleaved) {
        part = r.nextInt(parts);
      } else {
        part = Arrays.binarySearch(cuts, i);
        part = part >= 0 ? part : -part - 1;
        while (part < cuts.length && cuts[part] == i) {
          part++;
        }
      }
      events.get(i).applyTo(pieces.get(Math.min(part, parts - 1)));
    }
    return pieces;
  }

  static void assertEquivalent(Aggregate merged, Aggregate whole, List<Event> events) {
    SketchSpec spec = whole.spec();
    assertThat(merged.count()).isEqualTo(whole.count());
    for (int f = 0; f < spec.numericFields(); f++) {
      assertThat(merged.valueCount(f)).isEqualTo(whole.valueCount(f));
      assertThat(merged.sum(f)).isEqualTo(whole.sum(f)); // integer values: exact
      assertThat(merged.min(f)).isEqualTo(whole.min(f));
      assertThat(merged.max(f)).isEqualTo(whole.max(f));
    }
    // HLL: same registers, so same bytes and same estimate
    assertThat(merged.distinct()).isEqualTo(whole.distinct());
    assertThat(hllSection(merged)).isEqualTo(hllSection(whole));
    // CMS is linear: same total and the same point estimate for every item
    assertThat(merged.frequencyTotal()).isEqualTo(whole.frequencyTotal());
    TreeSet<String> items = new TreeSet<>();
    for (Event e : events) {
      if (e.frequentItem() != null) {
        items.add(e.frequentItem());
      }
    }
    for (String item : items) {
      assertThat(merged.frequency(item)).isEqualTo(whole.frequency(item));
    }
    int capacity = spec.heavyHitterCapacity();
    if (items.size() <= capacity) {
      assertThat(merged.heavyHitters(capacity)).isEqualTo(whole.heavyHitters(capacity));
    }
    // quantiles: exact while small, else within the reported rank error of the true rank
    long n = whole.quantileCount();
    assertThat(merged.quantileCount()).isEqualTo(n);
    double[] sorted =
        events.stream()
            .mapToDouble(Event::quantileValue)
            .filter(v -> !Double.isNaN(v))
            .sorted()
            .toArray();
    for (double q : new double[] {0, 0.1, 0.5, 0.9, 0.99, 1}) {
      QuantileEstimate m = merged.quantile(q);
      if (n <= 128) {
        assertThat(m).isEqualTo(whole.quantile(q));
      } else {
        double rank = rankOf(sorted, m.value());
        assertThat(rank).as("rank of q=%s", q).isCloseTo(q, within(m.rankError() + 1.0 / n));
      }
    }
  }

  /** Fraction of values strictly below v, averaged with the fraction at or below v. */
  static double rankOf(double[] sorted, double v) {
    int below = 0;
    int atOrBelow = 0;
    for (double x : sorted) {
      if (x < v) {
        below++;
      }
      if (x <= v) {
        atOrBelow++;
      }
    }
    double lo = (double) below / sorted.length;
    double hi = (double) atOrBelow / sorted.length;
    return (lo + hi) / 2;
  }

  static byte[] hllSection(Aggregate a) {
    ByteSink out = new ByteSink(64);
    a.distinctSketch().encodeTo(out);
    return out.toByteArray();
  }
}

package dev.skewer.sketches;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.sketches.Events.Event;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * An aggregate's state is a function of what was folded in, in that order, and of nothing else:
 * reading estimates, encoding, copying, checkpointing and restoring (decode), or being merged into
 * another at any point leave the bytes exactly as for an aggregate nobody looked at. This is what
 * makes a replay after a restore produce the same results as the first run, wherever checkpoints
 * and poll batches fell.
 */
class AggregateDeterminismTest {

  @Property(tries = 120)
  void shouldEndInTheSameBytesWhateverWasObservedOnTheWay(
      @ForAll @LongRange(min = 0, max = 1_000_000) long seed,
      @ForAll @IntRange(min = 0, max = 4000) int length,
      @ForAll @IntRange(min = 0, max = 4) int specChoice,
      @ForAll @IntRange(min = 1, max = 4000) int alphabet) {
    // given
    SketchSpec spec = AggregateCodecTest.spec(specChoice);
    List<Event> events = Events.stream(seed, length, spec, alphabet, alphabet);
    Aggregate untouched = Events.aggregate(spec, events);
    Random r = new Random(seed * 31 + length);

    // when: the same stream, observed and restored at random points
    Aggregate observed = Aggregate.empty(spec);
    for (Event e : events) {
      e.applyTo(observed);
      if (r.nextInt(150) == 0) {
        observed = observe(observed, r);
      }
    }

    // then
    assertThat(AggregateCodec.encode(observed)).isEqualTo(AggregateCodec.encode(untouched));
  }

  @Property(tries = 60)
  void shouldMergeToTheSameBytesWhenThePartsWereObservedOrRestored(
      @ForAll @LongRange(min = 0, max = 1_000_000) long seed,
      @ForAll @IntRange(min = 0, max = 4000) int length,
      @ForAll @IntRange(min = 1, max = 8) int parts,
      @ForAll @IntRange(min = 0, max = 4) int specChoice) {
    // given: parts of one stream, each with and without observation noise
    SketchSpec spec = AggregateCodecTest.spec(specChoice);
    List<Event> events = Events.stream(seed, length, spec, 3000, 400);
    Random r = new Random(seed ^ 0x5DEECE66DL);
    List<Aggregate> plain = new ArrayList<>();
    List<Aggregate> noisy = new ArrayList<>();
    for (int p = 0; p < parts; p++) {
      plain.add(Aggregate.empty(spec));
      noisy.add(Aggregate.empty(spec));
    }
    for (Event e : events) {
      int p = r.nextInt(parts);
      e.applyTo(plain.get(p));
      e.applyTo(noisy.get(p));
      if (r.nextInt(100) == 0) {
        noisy.set(p, observe(noisy.get(p), r));
      }
    }

    // when: both merged in the same (canonical) order, as a coordinator does
    Aggregate a = Aggregate.empty(spec);
    Aggregate b = Aggregate.empty(spec);
    for (int p = 0; p < parts; p++) {
      a.merge(plain.get(p));
      b.merge(AggregateCodec.decode(AggregateCodec.encode(noisy.get(p))));
    }

    // then
    assertThat(AggregateCodec.encode(b)).isEqualTo(AggregateCodec.encode(a));
  }

  /** Does one thing a running stage does to an aggregate; returns the one to continue with. */
  private static Aggregate observe(Aggregate a, Random r) {
    SketchSpec spec = a.spec();
    return switch (r.nextInt(5)) {
      case 0 -> {
        if (spec.quantiles()) {
          a.quantile(0.5);
          a.quantile(0.99);
        }
        if (spec.frequencies()) {
          a.heavyHitters(5);
        }
        if (spec.distinct()) {
          a.distinct();
        }
        yield a;
      }
      case 1 -> {
        AggregateCodec.encode(a); // a checkpoint
        yield a;
      }
      case 2 -> AggregateCodec.decode(AggregateCodec.encode(a)); // a restore
      case 3 -> a.copy();
      default -> {
        Aggregate other = Aggregate.empty(spec);
        other.merge(a); // read by a merge (the copy goes on)
        yield r.nextBoolean() ? other : a;
      }
    };
  }
}

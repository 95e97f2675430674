package dev.skewer.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.coordinator.merge.FinalResult;
import dev.skewer.coordinator.merge.WindowMerger;
import dev.skewer.core.window.HoppingSliceAssigner;
import dev.skewer.core.window.SessionSliceAssigner;
import dev.skewer.core.window.SliceAssigner;
import dev.skewer.core.window.TumblingSliceAssigner;
import dev.skewer.core.wire.Partial;
import dev.skewer.core.wire.Watermark;
import dev.skewer.core.wire.WireCodec;
import dev.skewer.loadgen.reference.ShapeReference;
import dev.skewer.node.aggregate.PartitionAggregator;
import dev.skewer.sketches.SketchSpec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Tumbling, hopping and session windows through the plain-Java cores — {@link PartitionAggregator}
 * × 3 source partitions and {@link WindowMerger} × 2 partials partitions, every message through the
 * wire codec — against {@link ShapeReference} (brute force over each key's sorted events) over many
 * seeds: disorder within the delay, late events within and beyond allowed lateness, salted keys
 * spread over up to 3 partitions, events that bridge closed sessions, and snapshot → restore of
 * nodes and mergers mid-stream. Every live result is exact; per result key there is at most one
 * revision 0 and revisions increase; without late events every result key is written exactly once.
 */
class WindowShapesPipelineTest {

  private static final int SOURCES = 3;
  private static final int MERGERS = 2;
  private static final SketchSpec SPEC = SketchSpec.countsOnly(1);

  static Stream<Arguments> runs() {
    List<Arguments> runs = new ArrayList<>();
    for (int seed = 1; seed <= 40; seed++) {
      boolean lateEvents = seed % 4 != 0;
      runs.add(Arguments.of("tumbling", seed, lateEvents));
      runs.add(Arguments.of("hopping 6s/1s", seed, lateEvents));
      runs.add(Arguments.of("hopping 6s/4s", seed, lateEvents));
      runs.add(Arguments.of("session 1s", seed, lateEvents));
      runs.add(Arguments.of("session 7ms", seed, lateEvents));
    }
    return runs.stream();
  }

  @ParameterizedTest(name = "{0} seed={1} late={2}")
  @MethodSource("runs")
  void shouldMatchTheBruteForceReferenceExactly(String shape, int seed, boolean lateEvents) {
    // given
    long delay = 300;
    // sessions of 1 s need a long lateness for late events to bridge two closed sessions
    long lateness = !lateEvents ? 0 : shape.equals("session 1s") ? 5_000 : 1_500;
    SliceAssigner windows;
    ShapeReference reference;
    long gap = 0;
    switch (shape) {
      case "tumbling" -> {
        windows = new TumblingSliceAssigner(2_000);
        reference = ShapeReference.tumbling(2_000, delay, lateness, SOURCES);
      }
      case "hopping 6s/1s" -> {
        windows = new HoppingSliceAssigner(6_000, 1_000);
        reference = ShapeReference.hopping(6_000, 1_000, delay, lateness, SOURCES);
      }
      case "hopping 6s/4s" -> {
        windows = new HoppingSliceAssigner(6_000, 4_000);
        reference = ShapeReference.hopping(6_000, 4_000, delay, lateness, SOURCES);
      }
      case "session 1s" -> {
        gap = 1_000;
        windows = new SessionSliceAssigner(gap);
        reference = ShapeReference.sessions(gap, delay, lateness, SOURCES);
      }
      default -> {
        gap = 7;
        windows = new SessionSliceAssigner(gap);
        reference = ShapeReference.sessions(gap, delay, lateness, SOURCES);
      }
    }
    Harness h = new Harness(windows, delay, lateness, seed);
    Random random = new Random(seed * 7919L + shape.hashCode());
    int keys = 12;
    long now = 1_700_000_000_000L;
    int nextRound = 50;

    // when
    for (int i = 0; i < 6_000; i++) {
      now += random.nextInt(gap > 0 && gap < 50 ? 4 : 25);
      int k = Math.min(keys - 1, (int) Math.abs(random.nextGaussian() * keys / 3));
      String key = "k" + k;
      long period = 500 + 250L * k; // sessions: each key alternates active and silent periods
      long t = now - random.nextInt((int) delay + 1);
      if (lateEvents && random.nextInt(100) < 4) {
        t = now - delay - random.nextInt((int) (2 * lateness + 2_000)); // within and beyond
      } else if (gap >= 1_000 && Math.floorMod(t / period, 2) == 1) {
        continue; // silence: the gaps late events may bridge
      }
      int fanout = 1 + k % 3;
      int partition = (k + random.nextInt(fanout)) % SOURCES; // salted over distinct partitions
      double value = 1 + random.nextInt(100);
      String[] dims = {"g" + Math.floorMod(t, 5)};
      boolean expected = reference.accept(partition, key, t, value);
      boolean actual = h.update(partition, key, t, value, dims);
      assertThat(actual).as("event %d at %d on %d accepted", i, t, partition).isEqualTo(expected);
      if (--nextRound == 0) {
        h.round();
        nextRound = 1 + random.nextInt(200);
        if (random.nextInt(5) == 0) {
          h.checkpointAndRestore(random);
        }
      }
    }
    h.finish();

    // then
    Map<String, ShapeReference.Result> expected = reference.results();
    Map<String, FinalResult> live = h.liveResults();
    assertThat(live.keySet()).containsExactlyInAnyOrderElementsOf(expected.keySet());
    for (ShapeReference.Result r : expected.values()) {
      FinalResult actual = live.get(r.resultKey());
      assertThat(actual.windowStartMs()).as(r.resultKey()).isEqualTo(r.startMs());
      // sessions: [first event, last event + 1)
      assertThat(actual.windowEndMs()).as(r.resultKey()).isEqualTo(r.endMs() + (gap > 0 ? 1 : 0));
      assertThat(actual.aggregate().count()).as(r.resultKey()).isEqualTo(r.count());
      assertThat(actual.aggregate().sum(0)).as(r.resultKey()).isEqualTo(r.sum());
      assertThat(actual.aggregate().min(0)).as(r.resultKey()).isEqualTo(r.min());
      assertThat(actual.aggregate().max(0)).as(r.resultKey()).isEqualTo(r.max());
      if (gap > 0) {
        assertThat(actual.dimensions())
            .as(r.resultKey())
            .containsExactly("g" + Math.floorMod(r.startMs(), 5));
      }
    }
    for (Map.Entry<String, List<FinalResult>> e : h.written.entrySet()) {
      List<FinalResult> records = e.getValue();
      assertThat(records.stream().filter(r -> r.revision() == 0).count())
          .as("revision 0 records of %s", e.getKey())
          .isLessThanOrEqualTo(1);
      for (int i = 1; i < records.size(); i++) {
        assertThat(records.get(i).revision())
            .as(e.getKey())
            .isGreaterThan(records.get(i - 1).revision());
      }
      FinalResult last = records.get(records.size() - 1);
      if (last.superseded()) {
        assertThat(last.aggregate().count()).isZero();
        // superseded_by may point at a session that was itself re-keyed later: follow the chain
        FinalResult by = last;
        for (int hops = 0; by != null && by.superseded() && hops < 100; hops++) {
          List<FinalResult> next = h.written.get(by.key() + "@" + by.supersededByStartMs());
          by = next == null ? null : next.get(next.size() - 1);
        }
        assertThat(by).as("%s superseded by a live session", e.getKey()).isNotNull();
        assertThat(by.superseded()).isFalse();
        assertThat(by.windowStartMs()).isLessThanOrEqualTo(last.windowStartMs());
        assertThat(by.windowEndMs()).isGreaterThanOrEqualTo(last.windowEndMs());
      }
    }
    if (!lateEvents) {
      assertThat(h.written.values()).allSatisfy(records -> assertThat(records).hasSize(1));
    }
    assertThat(h.mismatched()).isZero();
  }

  /** Nodes and mergers wired through the wire codec, with checkpoints. */
  private static final class Harness {
    final SliceAssigner windows;
    final long delay;
    final long lateness;
    final PartitionAggregator[] nodes = new PartitionAggregator[SOURCES];
    final WindowMerger[] mergers = new WindowMerger[MERGERS];
    final Map<String, List<FinalResult>> written = new TreeMap<>();
    final long[] epochs = new long[SOURCES];

    Harness(SliceAssigner windows, long delay, long lateness, int seed) {
      this.windows = windows;
      this.delay = delay;
      this.lateness = lateness;
      for (int p = 0; p < SOURCES; p++) {
        nodes[p] = new PartitionAggregator(p, 1, windows, delay, lateness, SPEC);
        epochs[p] = 1;
      }
      for (int q = 0; q < MERGERS; q++) {
        mergers[q] = new WindowMerger(SOURCES, lateness, SPEC);
      }
    }

    boolean update(int partition, String key, long t, double value, String[] dims) {
      return nodes[partition].update(key, t, new double[] {value}, null, null, Double.NaN, dims)
          == PartitionAggregator.Outcome.ACCEPTED;
    }

    void round() {
      for (PartitionAggregator node : nodes) {
        node.emit(
            p -> {
              int q =
                  Utils.toPositive(Utils.murmur2(p.key().getBytes(StandardCharsets.UTF_8)))
                      % MERGERS;
              mergers[q].accept((Partial) WireCodec.decode(WireCodec.encode(p)));
            });
        byte[] w = WireCodec.encode(node.watermark(false));
        for (WindowMerger m : mergers) {
          m.accept((Watermark) WireCodec.decode(w));
        }
      }
      for (WindowMerger m : mergers) {
        m.advance(
            r ->
                written
                    .computeIfAbsent(r.key() + "@" + r.windowStartMs(), k -> new ArrayList<>())
                    .add(r));
      }
    }

    /** Checkpoints one node (new epoch) or merger and continues from the restored copy. */
    void checkpointAndRestore(Random random) {
      if (random.nextBoolean()) {
        int p = random.nextInt(SOURCES);
        epochs[p]++;
        nodes[p] =
            PartitionAggregator.restore(
                nodes[p].snapshot(), epochs[p], windows, delay, lateness, SPEC);
      } else {
        int q = random.nextInt(MERGERS);
        mergers[q] = WindowMerger.restore(mergers[q].snapshot(), SOURCES, lateness, SPEC);
      }
    }

    /** End of input: every node finalizes, then every source reports the latest watermark. */
    void finish() {
      long end = Long.MIN_VALUE;
      for (PartitionAggregator node : nodes) {
        node.finalizeOpenSlices();
        end = Math.max(end, Math.max(node.watermarkMs(), node.closeThroughMs()));
      }
      round();
      for (int p = 0; p < SOURCES; p++) {
        byte[] w = WireCodec.encode(new Watermark(p, epochs[p], end + lateness + 1, true));
        for (WindowMerger m : mergers) {
          m.accept((Watermark) WireCodec.decode(w));
        }
      }
      for (WindowMerger m : mergers) {
        m.advance(
            r ->
                written
                    .computeIfAbsent(r.key() + "@" + r.windowStartMs(), k -> new ArrayList<>())
                    .add(r));
      }
    }

    /** The upsert view: the latest record per result key, without superseded ones. */
    Map<String, FinalResult> liveResults() {
      Map<String, FinalResult> live = new HashMap<>();
      for (Map.Entry<String, List<FinalResult>> e : written.entrySet()) {
        FinalResult last = e.getValue().get(e.getValue().size() - 1);
        if (!last.superseded()) {
          live.put(e.getKey(), last);
        }
      }
      return live;
    }

    long mismatched() {
      long n = 0;
      for (WindowMerger m : mergers) {
        n += m.mismatchedPartials();
      }
      return n;
    }
  }
}

package dev.skewer.coordinator.merge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.core.checkpoint.CapturedState;
import dev.skewer.core.checkpoint.Checkpoint;
import dev.skewer.core.checkpoint.HazelcastCheckpointStore;
import dev.skewer.core.window.WindowShape;
import dev.skewer.core.wire.Partial;
import dev.skewer.core.wire.Watermark;
import dev.skewer.sketches.Aggregate;
import dev.skewer.sketches.AggregateCodec;
import dev.skewer.sketches.SketchSpec;
import dev.skewer.testkit.checkpoint.CheckpointCluster;
import java.lang.management.ManagementFactory;
import java.util.BitSet;
import org.junit.jupiter.api.Test;

/**
 * A coordinator checkpoint holding one open window of 1,000,000 keys from 4 source partitions (the
 * real {@link WindowMerger} and its snapshot: each key's latest Partial, count and sum of one
 * field), saved through the chunked store on two Hazelcast members with its Kafka mirror, loaded
 * back, read back from the topic and restored; then the window is closed on the restored merger and
 * every key's result is checked against the value it was given. Runs in its own fork with a 1 GiB
 * heap ({@code coordinator/pom.xml}), the heap the coordinator ran out of before checkpoints were
 * chunked; prints the checkpoint's size, chunk count and timings.
 */
class MillionKeyMergeCheckpointIT {

  private static final int KEYS = 1_000_000;
  private static final int SOURCES = 4;
  private static final SketchSpec SPEC = SketchSpec.countsOnly(1);
  private static final long T0 = 1_700_000_000_000L;
  private static final long WINDOW_END = T0 + 10_000;
  private static final String[] NO_DIMENSIONS = new String[0];

  @Test
  void shouldSaveLoadReadBackAndRestoreAMillionKeyMergeCheckpoint() {
    try (CheckpointCluster cluster = CheckpointCluster.start("million-merge", "coordinator")) {
      HazelcastCheckpointStore store = cluster.store();
      // given a merger holding one open window of a million keys
      long heapBefore = usedHeapAfterGc();
      long t0 = System.nanoTime();
      WindowMerger original = build();
      long t1 = System.nanoTime();
      assertThat(original.heldPartials()).isEqualTo(KEYS);
      long mergerHeap = usedHeapAfterGc() - heapBefore;
      long t1s = System.nanoTime(); // after the heap measurement's collections
      CapturedState captured = original.capture(); // what the event loop does
      long t1c = System.nanoTime();
      byte[] state = captured.encode(); // what a worker does
      long t2 = System.nanoTime();
      captured = null; // it holds the original's aggregates
      original = null; // only the state stays

      // when
      CheckpointCluster.RoundTrip trip = cluster.roundTrip("coordinator/partials/0", KEYS, state);
      state = null;
      Checkpoint read = trip.read();
      long t3 = System.nanoTime();
      WindowMerger restored = WindowMerger.restore(read.state(), SOURCES, 0, SPEC);
      long t4 = System.nanoTime();

      // then: the window closes with every key's result as it was given
      assertThat(restored.heldPartials()).isEqualTo(KEYS);
      for (int s = 0; s < SOURCES; s++) {
        restored.accept(new Watermark(s, 1, WINDOW_END, false));
      }
      BitSet seen = new BitSet(KEYS);
      long[] wrong = new long[1];
      int emitted =
          restored.advance(
              r -> {
                int k = Integer.parseInt(r.key().substring(4));
                if (seen.get(k)
                    || r.windowEndMs() != WINDOW_END
                    || r.aggregate().count() != 1
                    || r.aggregate().sum(0) != value(k)) {
                  wrong[0]++;
                }
                seen.set(k);
              });
      assertThat(wrong[0]).as("duplicate or wrong results").isZero();
      assertThat(seen.cardinality()).isEqualTo(KEYS);
      assertThat(emitted).isEqualTo(KEYS);
      assertThat(store.chunkKeys()).hasSize(trip.chunks());
      System.err.printf(
          "1M-key merge checkpoint: merger heap %,d bytes (%.0f B per key and window); %s; build"
              + " %d ms, snapshot captured in %d ms (event loop) and encoded in %d ms (worker), restore %d ms; max heap %d MiB%n",
          mergerHeap,
          mergerHeap / (double) KEYS,
          trip.describe(KEYS),
          ms(t0, t1),
          ms(t1s, t1c),
          ms(t1c, t2),
          ms(t3, t4),
          Runtime.getRuntime().maxMemory() >> 20);
    }
  }

  /** Heap in use after a full collection (a measurement, not synchronisation). */
  private static long usedHeapAfterGc() {
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /** One Partial per key, each from source partition {@code k % 4}, all in [T0, T0 + 10 s). */
  private static WindowMerger build() {
    WindowMerger merger = new WindowMerger(SOURCES, 0, SPEC);
    double[] numeric = new double[1];
    for (int k = 0; k < KEYS; k++) {
      Aggregate a = Aggregate.empty(SPEC);
      numeric[0] = value(k);
      a.update(numeric, null, null, Double.NaN);
      long at = T0 + k % 10_000;
      merger.accept(
          new Partial(
              k % SOURCES,
              1,
              1,
              "key-" + k,
              T0,
              WINDOW_END,
              AggregateCodec.encode(a),
              WindowShape.Tumbling.INSTANCE,
              at,
              at,
              NO_DIMENSIONS));
    }
    return merger;
  }

  private static double value(int k) {
    return 1 + (k * 7_919L) % 1_000;
  }

  private static long ms(long fromNs, long toNs) {
    return (toNs - fromNs) / 1_000_000;
  }
}

package dev.skewer.node.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.core.checkpoint.CapturedState;
import dev.skewer.core.checkpoint.Checkpoint;
import dev.skewer.core.checkpoint.HazelcastCheckpointStore;
import dev.skewer.core.job.TumblingWindow;
import dev.skewer.core.window.SliceAssigner;
import dev.skewer.core.wire.Partial;
import dev.skewer.sketches.SketchSpec;
import dev.skewer.testkit.checkpoint.CheckpointCluster;
import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A node checkpoint of one source partition holding one open window of 1,000,000 keys (count and
 * sum of one field: the real {@link PartitionAggregator} and its snapshot), saved through the
 * chunked store on two Hazelcast members with its Kafka mirror, loaded back, read back from the
 * topic, and restored: the state's bytes and the restored aggregator's Partials equal the
 * original's. Runs in its own fork with a 1 GiB heap ({@code node/pom.xml}), as the issue's
 * processes did; prints the checkpoint's size, chunk count and timings.
 */
class MillionKeyCheckpointIT {

  private static final int KEYS = 1_000_000;
  private static final SketchSpec SPEC = SketchSpec.countsOnly(1);
  private static final SliceAssigner WINDOWS =
      SliceAssigner.of(new TumblingWindow(Duration.ofSeconds(10)));
  private static final long T0 = 1_700_000_000_000L;

  @Test
  void shouldSaveLoadReadBackAndRestoreAMillionKeyCheckpoint() {
    try (CheckpointCluster cluster = CheckpointCluster.start("million", "node")) {
      HazelcastCheckpointStore store = cluster.store();
      // given a partition with one open window of a million keys
      long t0 = System.nanoTime();
      PartitionAggregator original = build();
      long t1 = System.nanoTime();
      CapturedState captured = original.capture(); // what the event loop does
      long t1c = System.nanoTime();
      byte[] state = captured.encode(); // what a worker does
      long t2 = System.nanoTime();
      captured = null; // it holds the original's aggregates
      Fingerprint expected = fingerprint(original);
      original = null; // only the state and its fingerprint stay

      // when
      CheckpointCluster.RoundTrip trip = cluster.roundTrip("node/events/0", KEYS, state);
      state = null;
      Checkpoint read = trip.read();
      long t3 = System.nanoTime();
      PartitionAggregator restored =
          PartitionAggregator.restore(read.state(), 2, WINDOWS, 2_000, 0, SPEC);
      long t4 = System.nanoTime();

      // then
      assertThat(restored.openKeySlices()).isEqualTo(KEYS);
      assertThat(fingerprint(restored)).isEqualTo(expected);
      System.err.printf(
          "1M-key checkpoint: %s; build %d ms, snapshot captured in %d ms (event loop) and encoded in %d ms (worker), restore %d ms; max heap %d MiB%n",
          trip.describe(KEYS),
          ms(t0, t1),
          ms(t1, t1c),
          ms(t1c, t2),
          ms(t3, t4),
          Runtime.getRuntime().maxMemory() >> 20);
      assertThat(store.chunkKeys()).hasSize(trip.chunks());
    }
  }

  /** One event per key, all in the window [T0, T0 + 10 s), none closed. */
  private static PartitionAggregator build() {
    PartitionAggregator agg = new PartitionAggregator(0, 1, WINDOWS, 2_000, 0, SPEC);
    SplittableRandom rnd = new SplittableRandom(12);
    double[] numeric = new double[1];
    for (int k = 0; k < KEYS; k++) {
      numeric[0] = rnd.nextInt(1, 1_000);
      agg.update("key-" + k, T0 + rnd.nextLong(0, 5_000), numeric, null, null, Double.NaN);
    }
    return agg;
  }

  /** An order-independent digest of every open (key, slice) Partial, and their number. */
  record Fingerprint(long partials, long digest) {}

  private static Fingerprint fingerprint(PartitionAggregator agg) {
    long[] sum = new long[2];
    agg.flushOpenSlices(
        (Partial p) -> {
          sum[0]++;
          sum[1] +=
              p.key().hashCode() * 1_000_003L
                  + Arrays.hashCode(p.aggregate()) * 31L
                  + p.version()
                  + p.firstEventMs() * 7
                  + p.lastEventMs();
        });
    return new Fingerprint(sum[0], sum[1]);
  }

  private static long ms(long fromNs, long toNs) {
    return (toNs - fromNs) / 1_000_000;
  }
}

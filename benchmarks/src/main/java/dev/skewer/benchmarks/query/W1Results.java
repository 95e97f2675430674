package dev.skewer.benchmarks.query;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.result.Provenance;
import dev.skewer.core.result.ResultFormatter;
import dev.skewer.launcher.cli.JobResources;
import dev.skewer.sketches.Aggregate;
import java.util.Random;

/**
 * W1 results as the query benchmarks use them (examples/w1.yaml): per result a key of 100,000, 1–30
 * events of log-normal values from a million users, and the provenance of a 4-partition run.
 */
final class W1Results {
  static final long START = 1_700_000_000_000L;
  static final long END = START + 10_000;
  static final Provenance PROVENANCE =
      new Provenance(new int[] {0, 1, 2, 3}, new long[] {1, 1, 1, 1}, 4, 4, START + 12_000, 0);

  final JobSpec job = JobResources.load("w1.yaml");
  final String[] keys;
  final Aggregate[] aggregates;
  private final ResultFormatter formatter = new ResultFormatter(job);

  /** {@code n} results, the same for the same seed. */
  W1Results(int n, long seed) {
    Random r = new Random(seed);
    keys = new String[n];
    aggregates = new Aggregate[n];
    for (int k = 0; k < n; k++) {
      Aggregate a = Aggregate.empty(job.toSketchSpec());
      int events = 1 + r.nextInt(30);
      for (int e = 0; e < events; e++) {
        double value = Math.round(Math.exp(r.nextGaussian()) * 20_000) / 1000.0;
        a.update(new double[] {value}, "u" + r.nextInt(1_000_000), null, value);
      }
      aggregates[k] = a;
      keys[k] = "ad" + r.nextInt(100_000);
    }
  }

  /** Result {@code i}'s envelope as a coordinator writes it: its key, the first window. */
  byte[] envelope(int i) {
    return envelope(keys[i], START, i);
  }

  /** Result {@code i}'s aggregate as a coordinator writes it for {@code key}, in a 10 s window. */
  byte[] envelope(String key, long windowStartMs, int i) {
    return formatter.format(
        key, windowStartMs, windowStartMs + 10_000, aggregates[i], 0, null, null, PROVENANCE);
  }
}

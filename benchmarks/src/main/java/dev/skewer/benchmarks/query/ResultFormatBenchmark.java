package dev.skewer.benchmarks.query;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.result.Provenance;
import dev.skewer.core.result.ResultFormatter;
import dev.skewer.launcher.cli.JobResources;
import dev.skewer.sketches.Aggregate;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Nanoseconds per {@link ResultFormatter#format} of a W1 result (examples/w1.yaml: count, sum, min
 * and max of the value, distinct users, p50 and p99, provenance) from its merged aggregate: what a
 * coordinator pays for every result it writes, the sketches' estimates included.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ResultFormatBenchmark {
  private static final int RESULTS = 1 << 10;
  private static final long START = 1_700_000_000_000L;

  private Aggregate[] aggregates;
  private String[] keys;
  private ResultFormatter formatter;
  private Provenance provenance;
  private int i;

  @Setup
  public void setUp() {
    JobSpec job = JobResources.load("w1.yaml");
    formatter = new ResultFormatter(job);
    Random r = new Random(1);
    aggregates = new Aggregate[RESULTS];
    keys = new String[RESULTS];
    for (int k = 0; k < RESULTS; k++) {
      Aggregate a = Aggregate.empty(job.toSketchSpec());
      int n = 1 + r.nextInt(30);
      for (int e = 0; e < n; e++) {
        double value = Math.round(Math.exp(r.nextGaussian()) * 20_000) / 1000.0;
        a.update(new double[] {value}, "u" + r.nextInt(1_000_000), null, value);
      }
      aggregates[k] = a;
      keys[k] = "ad" + r.nextInt(100_000);
    }
    provenance =
        new Provenance(new int[] {0, 1, 2, 3}, new long[] {1, 1, 1, 1}, 4, 4, START + 12_000, 0);
  }

  @Benchmark
  public byte[] formatW1Result() {
    int k = i++ & (RESULTS - 1);
    return formatter.format(
        keys[k], START, START + 10_000, aggregates[k], 0, null, null, provenance);
  }
}

package dev.skewer.benchmarks.query;

import dev.skewer.coordinator.query.ResultParser;
import dev.skewer.coordinator.query.StoredResult;
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
 * Nanoseconds per {@link ResultParser#parse} of a W1 result envelope (examples/w1.yaml: count, sum,
 * min and max of the value, distinct users, p50 and p99, provenance), what the coordinator's query
 * view pays for every result the cluster writes.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ResultParseBenchmark {
  private static final int RESULTS = 1 << 10;
  private static final long START = 1_700_000_000_000L;

  private byte[][] envelopes;
  private ResultParser parser;
  private int i;

  @Setup
  public void setUp() {
    JobSpec job = JobResources.load("w1.yaml");
    ResultFormatter formatter = new ResultFormatter(job);
    parser = new ResultParser(job);
    Random r = new Random(1);
    envelopes = new byte[RESULTS][];
    for (int k = 0; k < RESULTS; k++) {
      Aggregate a = Aggregate.empty(job.toSketchSpec());
      int n = 1 + r.nextInt(30);
      for (int e = 0; e < n; e++) {
        double value = Math.round(Math.exp(r.nextGaussian()) * 20_000) / 1000.0;
        a.update(new double[] {value}, "u" + r.nextInt(1_000_000), null, value);
      }
      Provenance provenance =
          new Provenance(new int[] {0, 1, 2, 3}, new long[] {1, 1, 1, 1}, 4, 4, START + 12_000, 0);
      envelopes[k] =
          formatter.format(
              "ad" + r.nextInt(100_000), START, START + 10_000, a, 0, null, null, provenance);
    }
  }

  @Benchmark
  public StoredResult parseW1Result() {
    return parser.parse(envelopes[i++ & (RESULTS - 1)]);
  }
}

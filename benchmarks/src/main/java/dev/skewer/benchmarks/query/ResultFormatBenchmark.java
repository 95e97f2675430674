package dev.skewer.benchmarks.query;

import dev.skewer.core.result.ResultFormatter;
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

  private W1Results results;
  private ResultFormatter formatter;
  private int i;

  @Setup
  public void setUp() {
    results = new W1Results(RESULTS, 1);
    formatter = new ResultFormatter(results.job);
  }

  @Benchmark
  public byte[] formatW1Result() {
    int k = i++ & (RESULTS - 1);
    return formatter.format(
        results.keys[k],
        W1Results.START,
        W1Results.END,
        results.aggregates[k],
        0,
        null,
        null,
        W1Results.PROVENANCE);
  }
}

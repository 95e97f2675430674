package dev.skewer.benchmarks.query;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Nanoseconds per {@link dev.skewer.core.result.ResultFormatter#format} of a W1 result
 * (examples/w1.yaml: count, sum, min and max of the value, distinct users, p50 and p99, provenance)
 * from its merged aggregate: what a coordinator pays for every result it writes, the sketches'
 * estimates included.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ResultFormatBenchmark {
  private static final int RESULTS = 1 << 10;

  private W1Results results;
  private int i;

  @Setup
  public void setUp() {
    results = new W1Results(RESULTS, 1);
  }

  @Benchmark
  public byte[] formatW1Result() {
    return results.envelope(i++ & (RESULTS - 1));
  }
}

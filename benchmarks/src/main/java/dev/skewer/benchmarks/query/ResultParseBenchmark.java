package dev.skewer.benchmarks.query;

import dev.skewer.coordinator.query.ResultParser;
import dev.skewer.coordinator.query.StoredResult;
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

  private byte[][] envelopes;
  private ResultParser parser;
  private int i;

  @Setup
  public void setUp() {
    W1Results results = new W1Results(RESULTS, 1);
    parser = new ResultParser(results.job);
    envelopes = new byte[RESULTS][];
    for (int k = 0; k < RESULTS; k++) {
      envelopes[k] = results.envelope(k);
    }
  }

  @Benchmark
  public StoredResult parseW1Result() {
    return parser.parse(envelopes[i++ & (RESULTS - 1)]);
  }
}

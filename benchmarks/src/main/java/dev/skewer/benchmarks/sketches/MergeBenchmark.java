package dev.skewer.benchmarks.sketches;

import dev.skewer.sketches.Aggregate;
import dev.skewer.sketches.AggregateCodec;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Nanoseconds per merge of one partial into an accumulator, and per encode/decode of a partial, for
 * partials of {@code events} events with every sketch on (the coordinator's inner loop).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class MergeBenchmark {
  @Param({"10", "10000"})
  public int events;

  @Param({"counts", "all"})
  public String sketches;

  private Aggregate partial;
  private Aggregate accumulator;
  private byte[] encoded;

  @Setup(Level.Trial)
  public void setUp() {
    Random r = new Random(2);
    partial = Aggregate.empty(UpdateBenchmark.spec(sketches));
    for (int k = 0; k < events; k++) {
      double u = r.nextDouble();
      partial.update(
          new double[] {r.nextInt(100), r.nextGaussian()},
          "user-" + r.nextInt(1_000_000),
          "item-" + (int) (u * u * u * 10_000),
          Math.exp(r.nextGaussian()));
    }
    encoded = AggregateCodec.encode(partial);
  }

  @Setup(Level.Invocation)
  public void freshAccumulator() {
    accumulator = partial.copy(); // merging into a same-sized accumulator, as a coordinator does
  }

  @Benchmark
  public Aggregate merge() {
    accumulator.merge(partial);
    return accumulator;
  }

  @Benchmark
  public byte[] encode() {
    return AggregateCodec.encode(partial);
  }

  @Benchmark
  public Aggregate decode() {
    return AggregateCodec.decode(encoded);
  }
}

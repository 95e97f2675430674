package dev.skewer.benchmarks.query;

import dev.skewer.coordinator.merge.FinalResult;
import dev.skewer.coordinator.merge.WindowMerger;
import dev.skewer.core.wire.Partial;
import dev.skewer.core.wire.Watermark;
import dev.skewer.sketches.AggregateCodec;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Nanoseconds per result when a coordinator closes a W1 window: each (key, window)'s held Partials
 * decoded and merged in source order into the aggregate its result is written from (the writing
 * itself is {@link ResultFormatBenchmark}). {@code sources}: how many of the 4 source partitions
 * hold a Partial of each key — 1 when events are partitioned by key (W1), more for a salted key.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class WindowCloseBenchmark {
  static final int PARTITIONS = 4;
  static final int KEYS = 1 << 10;

  @Param({"1", "2"})
  public int sources;

  private W1Results results;
  private byte[][] encoded;
  private WindowMerger merger;
  private long merged;

  @Setup
  public void setUp() {
    results = new W1Results(KEYS * PARTITIONS, 1);
    encoded = new byte[results.aggregates.length][];
    for (int i = 0; i < encoded.length; i++) {
      encoded[i] = AggregateCodec.encode(results.aggregates[i]);
    }
  }

  /** A merger holding one window's Partials, every source's watermark past its end. */
  @Setup(Level.Invocation)
  public void fill() {
    merger = new WindowMerger(PARTITIONS, 0, results.job.toSketchSpec());
    for (int k = 0; k < KEYS; k++) {
      for (int s = 0; s < sources; s++) {
        int source = (k + s) % PARTITIONS;
        merger.accept(
            new Partial(
                source,
                1,
                1,
                "ad" + k,
                W1Results.START,
                W1Results.END,
                encoded[k * PARTITIONS + s]));
      }
    }
    for (int s = 0; s < PARTITIONS; s++) {
      merger.accept(new Watermark(s, 1, W1Results.END + 1, false));
    }
  }

  @Benchmark
  @OperationsPerInvocation(KEYS)
  public long closeW1Window() {
    merger.advance(this::count);
    return merged;
  }

  private void count(FinalResult r) {
    merged += r.aggregate().count();
  }
}

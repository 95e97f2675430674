package dev.skewer.benchmarks.sketches;

import dev.skewer.sketches.Aggregate;
import dev.skewer.sketches.SketchSpec;
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
 * Nanoseconds per {@link Aggregate#update} for each sketch alone and for all of them on, on an
 * aggregate already past its exact thresholds (HLL dense, CMS on, t-digest live): the steady-state
 * cost of a hot key.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class UpdateBenchmark {
  private static final int ITEMS = 1 << 16;

  @Param({"counts", "distinct", "frequencies", "quantiles", "all"})
  public String sketches;

  private Aggregate aggregate;
  private final double[] numeric = new double[2];
  private String[] users;
  private String[] items;
  private double[] values;
  private int i;

  static SketchSpec spec(String sketches) {
    SketchSpec counts = SketchSpec.countsOnly(2);
    return switch (sketches) {
      case "counts" -> counts;
      case "distinct" -> counts.withDistinct();
      case "frequencies" -> counts.withFrequencies();
      case "quantiles" -> counts.withQuantiles();
      case "all" -> counts.withDistinct().withFrequencies().withQuantiles();
      default -> throw new IllegalArgumentException(sketches);
    };
  }

  @Setup(Level.Trial)
  public void setUp() {
    Random r = new Random(1);
    users = new String[ITEMS];
    items = new String[ITEMS];
    values = new double[ITEMS];
    for (int k = 0; k < ITEMS; k++) {
      users[k] = "user-" + r.nextInt(1_000_000);
      double u = r.nextDouble();
      items[k] = "item-" + (int) (u * u * u * 10_000); // skewed
      values[k] = Math.exp(r.nextGaussian());
    }
    aggregate = Aggregate.empty(spec(sketches));
    for (int k = 0; k < ITEMS; k++) {
      update(k);
    }
  }

  private void update(int k) {
    numeric[0] = values[k];
    numeric[1] = k;
    aggregate.update(numeric, users[k], items[k], values[k]);
  }

  @Benchmark
  public Aggregate update() {
    update(i++ & (ITEMS - 1));
    return aggregate;
  }
}

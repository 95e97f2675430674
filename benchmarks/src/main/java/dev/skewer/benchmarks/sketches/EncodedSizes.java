package dev.skewer.benchmarks.sketches;

import dev.skewer.sketches.Aggregate;
import dev.skewer.sketches.AggregateCodec;
import dev.skewer.sketches.SketchSpec;
import java.util.Random;

/**
 * Prints encoded and heap bytes of one (key, window) aggregate for 1, 10, 1,000 and 100,000
 * distinct values (each value seen once, in every sketch the spec enables). Run: {@code java -cp
 * benchmarks/target/skewer-benchmarks.jar dev.skewer.benchmarks.sketches.EncodedSizes}.
 */
public final class EncodedSizes {
  private EncodedSizes() {}

  public static void main(String[] args) {
    String[] names = {"counts(2)", "distinct", "frequencies", "quantiles", "all"};
    int[] sizes = {1, 10, 1_000, 100_000};
    System.out.println("| spec | distinct values | encoded bytes | heap bytes |");
    System.out.println("|---|---:|---:|---:|");
    for (String name : names) {
      SketchSpec spec = UpdateBenchmark.spec(name.startsWith("counts") ? "counts" : name);
      for (int n : sizes) {
        Random r = new Random(3);
        Aggregate a = Aggregate.empty(spec);
        for (int k = 0; k < n; k++) {
          double v = Math.exp(r.nextGaussian());
          a.update(new double[] {v, k}, "user-" + k, "item-" + k, v);
        }
        byte[] bytes = AggregateCodec.encode(a);
        System.out.printf("| %s | %,d | %,d | %,d |%n", name, n, bytes.length, a.heapBytes());
      }
    }
  }
}

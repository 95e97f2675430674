package dev.skewer.benchmarks.sketches;

import dev.skewer.sketches.Aggregate;
import dev.skewer.sketches.QuantileEstimate;
import dev.skewer.sketches.SketchSpec;
import java.util.Arrays;
import java.util.Random;

/**
 * Measures t-digest rank errors at p50, p90, p99 and p99.9 on 1M log-normal values, one stream per
 * seed (default 8 seeds, compression 100), and prints the largest error over the seeds beside the
 * reported bound. Run: {@code java -cp benchmarks/target/skewer-benchmarks.jar
 * dev.skewer.benchmarks.sketches.QuantileErrors [seeds] [compression]}.
 */
public final class QuantileErrors {
  private static final int N = 1_000_000;
  private static final double[] QS = {0.5, 0.9, 0.99, 0.999};

  private QuantileErrors() {}

  public static void main(String[] args) {
    int seeds = args.length > 0 ? Integer.parseInt(args[0]) : 8;
    double compression = args.length > 1 ? Double.parseDouble(args[1]) : 100;
    double[] worst = new double[QS.length];
    double[] bound = new double[QS.length];
    for (int seed = 0; seed < seeds; seed++) {
      Random r = new Random(seed);
      double[] values = new double[N];
      Aggregate a = Aggregate.empty(SketchSpec.countsOnly(0).withQuantiles(compression));
      for (int i = 0; i < N; i++) {
        values[i] = Math.exp(r.nextGaussian());
        a.update(null, null, null, values[i]);
      }
      Arrays.sort(values);
      for (int k = 0; k < QS.length; k++) {
        QuantileEstimate e = a.quantile(QS[k]);
        worst[k] = Math.max(worst[k], Math.abs(rank(values, e.value()) - QS[k]));
        bound[k] = e.rankError();
      }
      System.err.printf("seed %d of %d done%n", seed + 1, seeds);
    }
    System.out.println("| q | largest rank error | reported bound |");
    System.out.println("|---|---:|---:|");
    for (int k = 0; k < QS.length; k++) {
      System.out.printf("| %s | %.5f | %.4f |%n", QS[k], worst[k], bound[k]);
    }
  }

  private static double rank(double[] sorted, double v) {
    int lo = lowerBound(sorted, v);
    int hi = lowerBound(sorted, Math.nextUp(v));
    return (lo + hi) / 2.0 / sorted.length;
  }

  private static int lowerBound(double[] sorted, double v) {
    int lo = 0;
    int hi = sorted.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid] < v) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
}

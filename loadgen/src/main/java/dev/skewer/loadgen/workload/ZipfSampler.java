package dev.skewer.loadgen.workload;

import java.util.SplittableRandom;

/**
 * Samples ranks {@code k} in {@code [0, n)} with {@code P(k) ∝ (k + 1)^-s} (a Zipf law with
 * exponent {@code s >= 0}; {@code s = 0} is uniform).
 *
 * <p>Immutable and thread-safe: the table is built once and the random source is passed to each
 * {@link #sample} call, so one sampler serves any number of seeded streams. Memory: 8 bytes per
 * rank; sampling is O(log n).
 *
 * <p>Implementation note: an inverse-CDF sampler over the precomputed cumulative weights (binary
 * search). Deterministic: the same random stream yields the same ranks.
 */
public final class ZipfSampler {

  private final int n;
  private final double s;
  private final double[] cdf;

  public ZipfSampler(int n, double s) {
    if (n < 1) {
      throw new IllegalArgumentException("n must be >= 1: " + n);
    }
    if (!(s >= 0) || Double.isInfinite(s)) {
      throw new IllegalArgumentException("s must be finite and >= 0: " + s);
    }
    this.n = n;
    this.s = s;
    this.cdf = new double[n];
    double total = 0;
    for (int k = 0; k < n; k++) {
      total += StrictMath.pow(k + 1, -s);
      cdf[k] = total;
    }
    for (int k = 0; k < n; k++) {
      cdf[k] /= total;
    }
    cdf[n - 1] = 1.0;
  }

  public int n() {
    return n;
  }

  public double s() {
    return s;
  }

  /** The exact probability of rank {@code k}. */
  public double probability(int k) {
    if (k < 0 || k >= n) {
      throw new IllegalArgumentException("k must be in [0, " + n + "): " + k);
    }
    return k == 0 ? cdf[0] : cdf[k] - cdf[k - 1];
  }

  /** One rank in {@code [0, n)}; consumes exactly one {@code nextDouble()} of {@code random}. */
  public int sample(SplittableRandom random) {
    double u = random.nextDouble();
    int lo = 0;
    int hi = n - 1;
    while (lo < hi) { // first k with cdf[k] > u
      int mid = (lo + hi) >>> 1;
      if (cdf[mid] > u) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }
}

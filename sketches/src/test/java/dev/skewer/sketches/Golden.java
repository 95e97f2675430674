package dev.skewer.sketches;

import java.util.HexFormat;

/** The estimates a golden encoding is recorded with (see golden-v1.txt). */
final class Golden {
  private Golden() {}

  static String describe(Aggregate a) {
    SketchSpec spec = a.spec();
    StringBuilder sb = new StringBuilder("count=").append(a.count());
    for (int f = 0; f < spec.numericFields(); f++) {
      sb.append(" f")
          .append(f)
          .append('=')
          .append(a.valueCount(f))
          .append('/')
          .append(a.sum(f))
          .append('/')
          .append(a.min(f))
          .append('/')
          .append(a.max(f));
    }
    if (spec.distinct()) {
      sb.append(" distinct=").append(a.distinct().estimate());
    }
    if (spec.frequencies()) {
      sb.append(" top=");
      for (HeavyHitter h : a.heavyHitters(3)) {
        sb.append(h.item())
            .append(':')
            .append(h.estimate())
            .append('+')
            .append(h.maxOverestimate())
            .append(',');
      }
    }
    if (spec.quantiles()) {
      QuantileEstimate p50 = a.quantile(0.5);
      QuantileEstimate p99 = a.quantile(0.99);
      sb.append(" p50=")
          .append(Double.toHexString(p50.value()))
          .append(" p99=")
          .append(Double.toHexString(p99.value()))
          .append(" rankError99=")
          .append(p99.rankError());
    }
    return sb.toString();
  }

  /** Prints golden lines; run by hand when the format version changes. */
  public static void main(String[] args) {
    String[] names = {"counts-only", "small", "mid-dense", "quantiles-raw", "quantiles-folded"};
    SketchSpec[] specs = {
      SketchSpec.countsOnly(2),
      Events.smallSpec(1, 16),
      SketchSpec.countsOnly(1)
          .withDistinct(10, 20)
          .withFrequencies(0.05, 0.05, 8)
          .withQuantiles(50),
      SketchSpec.countsOnly(0).withQuantiles(50),
      SketchSpec.countsOnly(0).withQuantiles(50)
    };
    int[] lengths = {3, 40, 3000, 300, 1024};
    for (int i = 0; i < names.length; i++) {
      Aggregate a =
          Events.aggregate(specs[i], Events.stream(42 + i, lengths[i], specs[i], 2000, 100));
      System.out.println(
          names[i] + "|" + HexFormat.of().formatHex(AggregateCodec.encode(a)) + "|" + describe(a));
    }
  }
}

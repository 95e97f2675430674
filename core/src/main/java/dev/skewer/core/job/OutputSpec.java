package dev.skewer.core.job;

import java.math.BigDecimal;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The shape of result records.
 *
 * @param keyField the envelope field holding the key ({@code key}; the seed documents use {@code
 *     user_id}); must not be {@code event}, {@code timestamp}, {@code value} or {@code
 *     user_attributes}
 * @param quantiles the quantiles reported, each in [0, 1], no two with the same name ({@link
 *     #quantileLabel(double)}); null means the default [0.5, 0.99]
 * @param heavyHitters how many heavy hitters to report, in [0, 10000] (0: none)
 * @param format the result encoding; only {@code json}
 */
public record OutputSpec(String keyField, List<Double> quantiles, int heavyHitters, String format) {

  public static final String DEFAULT_KEY_FIELD = "key";
  public static final List<Double> DEFAULT_QUANTILES = List.of(0.5, 0.99);
  public static final int DEFAULT_HEAVY_HITTERS = 10;
  public static final String DEFAULT_FORMAT = "json";

  private static final Set<String> RESERVED =
      Set.of("event", "timestamp", "value", "user_attributes");

  public OutputSpec {
    keyField = keyField == null ? DEFAULT_KEY_FIELD : keyField;
    Names.requireIdentifier("keyField", keyField);
    if (RESERVED.contains(keyField)) {
      throw new JobSpecException(
          "keyField",
          "must not be one of " + RESERVED + " (envelope fields), was '" + keyField + "'");
    }
    quantiles = quantiles == null ? DEFAULT_QUANTILES : List.copyOf(quantiles);
    Set<String> labels = new HashSet<>();
    for (int i = 0; i < quantiles.size(); i++) {
      double q = quantiles.get(i);
      if (!(q >= 0 && q <= 1)) {
        throw new JobSpecException("quantiles[" + i + "]", "must be in [0, 1], was " + q);
      }
      if (!labels.add(quantileLabel(q))) {
        throw new JobSpecException("quantiles[" + i + "]", "duplicate quantile " + q);
      }
    }
    if (heavyHitters < 0 || heavyHitters > 10_000) {
      throw new JobSpecException("heavyHitters", "must be in [0, 10000], was " + heavyHitters);
    }
    format = format == null ? DEFAULT_FORMAT : format;
    if (!format.equals("json")) {
      throw new JobSpecException("format", "only 'json' is supported, was '" + format + "'");
    }
  }

  /** All defaults: key field {@code key}, quantiles [0.5, 0.99], 10 heavy hitters, json. */
  public static OutputSpec defaults() {
    return new OutputSpec(
        DEFAULT_KEY_FIELD, DEFAULT_QUANTILES, DEFAULT_HEAVY_HITTERS, DEFAULT_FORMAT);
  }

  /**
   * The label of quantile {@code q} in result field names: the percentile with {@code _} for the
   * decimal point: 0.5 → {@code p50}, 0.99 → {@code p99}, 0.999 → {@code p99_9}, 1 → {@code p100}.
   */
  public static String quantileLabel(double q) {
    String pct = BigDecimal.valueOf(q).movePointRight(2).stripTrailingZeros().toPlainString();
    return "p" + pct.replace('.', '_');
  }
}

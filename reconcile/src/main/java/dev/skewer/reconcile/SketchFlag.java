package dev.skewer.reconcile;

/**
 * A streamed estimate outside its own error bars around the exact value.
 *
 * @param resultKey the results-topic key
 * @param field the result field ({@code distinct_user}, {@code p99_latency}, {@code top_item})
 * @param estimate the streamed estimate (for heavy hitters: {@code item=estimate})
 * @param exact the exact value (for quantiles: the nearest-rank value, and the estimate's exact
 *     rank interval)
 * @param allowed the interval the estimate had to be in, from the result's own bound
 */
public record SketchFlag(
    String resultKey, String field, String estimate, String exact, String allowed) {}

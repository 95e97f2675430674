/**
 * Internal: quantiles, exact for the first 128 values and a t-digest (MergingDigest, K_1 scale)
 * after that, kept compact (centroids only) whenever it is observed. Owns the rank-error bound
 * reported by {@link dev.skewer.sketches.QuantileEstimate}.
 */
package dev.skewer.sketches.quantile;

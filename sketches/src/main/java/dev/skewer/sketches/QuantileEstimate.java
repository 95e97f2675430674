package dev.skewer.sketches;

/**
 * The estimated value at quantile {@code quantile}, with the rank error bound the estimate carries
 * (0 when computed exactly from retained values).
 */
public record QuantileEstimate(double quantile, double value, double rankError) {}

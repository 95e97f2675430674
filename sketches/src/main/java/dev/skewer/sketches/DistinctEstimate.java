package dev.skewer.sketches;

/** A distinct-count estimate with its relative standard error (HLL: 1.04/sqrt(m)). */
public record DistinctEstimate(long estimate, double relativeStandardError) {}

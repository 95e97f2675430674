package dev.skewer.sketches;

/**
 * An item with its estimated frequency; the true frequency lies in [estimate - maxOverestimate,
 * estimate] with the sketch's confidence.
 */
public record HeavyHitter(String item, long estimate, long maxOverestimate) {}

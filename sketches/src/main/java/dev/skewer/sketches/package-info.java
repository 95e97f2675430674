/**
 * Mergeable aggregate state for Skewer: {@link dev.skewer.sketches.Aggregate} holds the count,
 * per-field sum/min/max and the optional sketches a {@link dev.skewer.sketches.SketchSpec} asks for
 * (HyperLogLog++ distinct counts, Count-Min Sketch heavy hitters, t-digest quantiles), and every
 * estimate it returns carries its error bound. {@link dev.skewer.sketches.AggregateCodec} is the
 * one versioned binary form used for partials and checkpoints. Sub-packages are internal.
 */
package dev.skewer.sketches;

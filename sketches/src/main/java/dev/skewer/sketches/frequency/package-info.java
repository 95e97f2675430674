/**
 * Internal: item frequencies and heavy hitters, exact in a small map until more than {@code
 * capacity} distinct items arrive, then a lazily created stream-lib Count-Min Sketch plus a
 * bounded, deterministically merged candidate set. Owns the over-estimate bound reported by {@link
 * dev.skewer.sketches.HeavyHitter}.
 */
package dev.skewer.sketches.frequency;

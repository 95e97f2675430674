/**
 * Exact, brute-force ground truth from the same generated events a test sends: per (key, tumbling
 * window) counts, sums, extremes and reference sketches, plus the late and DLQ events, decided by
 * simulating each partition's watermark as a node does; and {@link
 * dev.skewer.loadgen.reference.ShapeReference} for hopping windows and sessions, computed from each
 * key's sorted events without slices.
 */
package dev.skewer.loadgen.reference;

/**
 * Exact, brute-force ground truth from the same generated events a test sends: per (key,
 * tumbling window) counts, sums, extremes and reference sketches, plus the late and DLQ events,
 * decided by simulating each partition's watermark as a node does.
 */
package dev.skewer.loadgen.reference;

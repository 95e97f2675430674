/**
 * Stage 2 in plain Java: per partials partition, the latest Partial of every source partition
 * for each (key, window), the per-source watermarks and the global watermark they imply, and
 * EMIT FINAL — exactly one final Result per (key, window) when the global watermark passes the
 * window's end, revisions within allowed lateness, state dropped after it.
 */
package dev.skewer.coordinator.merge;

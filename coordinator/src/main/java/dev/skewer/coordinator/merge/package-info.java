/**
 * Stage 2 in plain Java: per partials partition, the latest Partial of every source partition for
 * each (key, slice), the per-source watermarks and the global watermark they imply, and EMIT FINAL
 * — exactly one final Result per (key, window) or (key, session) when the global watermark closes
 * it, revisions within allowed lateness, state dropped after it. Tumbling windows are merged in
 * {@link dev.skewer.coordinator.merge.WindowMerger} itself, hopping windows composed from slices in
 * {@code HoppingMerge}, sessions chained from slice extents in {@code SessionMerge}; the shape
 * comes with the Partials.
 */
package dev.skewer.coordinator.merge;

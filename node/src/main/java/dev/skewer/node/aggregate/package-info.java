/**
 * Stage 1 pre-aggregation for one source partition, in plain Java: per (key, slice) an {@link
 * dev.skewer.sketches.Aggregate} with the first and last event time and the earliest event's
 * dimensions, the partition's event-time watermark, and the decision of when a slice's Partial is
 * emitted (its end passed by the watermark) and when its state is dropped (the end of the earliest
 * result it feeds + allowed lateness passed). A slice is a tumbling window, a gcd(size, hop) piece
 * of hopping windows or a gap/4 piece of sessions. No Kafka, no Vert.x: the ingest verticle drives
 * it.
 */
package dev.skewer.node.aggregate;

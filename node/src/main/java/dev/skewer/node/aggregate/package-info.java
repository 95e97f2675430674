/**
 * Stage 1 pre-aggregation for one source partition, in plain Java: per (key, window slice) an
 * {@link dev.skewer.sketches.Aggregate}, the partition's event-time watermark, and the decision
 * of when a slice's Partial is emitted (its end passed by the watermark) and when its state is
 * dropped (end + allowed lateness passed). No Kafka, no Vert.x: the ingest verticle drives it.
 */
package dev.skewer.node.aggregate;

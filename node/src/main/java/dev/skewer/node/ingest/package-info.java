/**
 * The node's Kafka shell around {@link dev.skewer.node.aggregate.PartitionAggregator}: consume
 * events (vertx-kafka-client), decode, route bad events to the DLQ and too-late ones to the late
 * topic, emit Partials, broadcast watermarks, detect idleness. The event loop never blocks:
 * producer sends run on an ordered worker.
 */
package dev.skewer.node.ingest;

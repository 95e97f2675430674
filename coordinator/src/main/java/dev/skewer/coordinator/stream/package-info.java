/**
 * The coordinator's Kafka shell around {@link dev.skewer.coordinator.merge.WindowMerger}: consume
 * the partials topic, merge, write results to the results topic and publish per-window top-K lists.
 * The event loop never blocks: producer sends and Hazelcast writes run on ordered workers.
 */
package dev.skewer.coordinator.stream;

/**
 * The top-K keys by count per closed window: bounded per window on each coordinator, published to
 * Hazelcast per partials partition, and merged across partitions when queried (keys never span
 * partials partitions, so the union of per-partition top-K lists holds the global top-K).
 */
package dev.skewer.coordinator.topk;

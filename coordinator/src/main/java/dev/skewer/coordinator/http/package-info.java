/**
 * The coordinator's HTTP API (Vert.x Web): top-K per window, cluster membership, health and
 * Prometheus metrics. Handlers never block the event loop: store reads run on workers.
 */
package dev.skewer.coordinator.http;

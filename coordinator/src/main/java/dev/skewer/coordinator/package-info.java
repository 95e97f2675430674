/**
 * Stage 2 of Skewer: the coordinator process. {@link dev.skewer.coordinator.CoordinatorRuntime}
 * starts a Vert.x instance with the merge verticle (partials in, results out) and the HTTP API.
 */
package dev.skewer.coordinator;

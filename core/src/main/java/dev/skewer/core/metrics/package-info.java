/**
 * Meters every Skewer process registers besides its stage's own: the JVM's ({@link
 * dev.skewer.core.metrics.ProcessMetrics}) and its Hazelcast member's ({@link
 * dev.skewer.core.metrics.HazelcastMetrics}). Metric names live as constants in these classes.
 */
package dev.skewer.core.metrics;

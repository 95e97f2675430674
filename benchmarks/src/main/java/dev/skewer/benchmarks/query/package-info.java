/** JMH benchmarks of the coordinator's query side: reading back what the cluster writes. */
package dev.skewer.benchmarks.query;

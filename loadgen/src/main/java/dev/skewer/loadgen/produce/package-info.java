/**
 * Sending a workload to Kafka: paced, explicitly partitioned, reporting progress, optionally
 * feeding the exact reference in send order.
 */
package dev.skewer.loadgen.produce;

/**
 * The {@code skewer bench} workloads: W1 engine-only (in-memory events through the node and
 * coordinator cores, beside a plain single-threaded loop with the same sketches), end-to-end (JSON
 * on the embedded broker to final results), checkpoint cost, hot-key load imbalance and sliding
 * (hopping) windows.
 */
package dev.skewer.benchmarks.workload;

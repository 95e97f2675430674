/**
 * Skewer's benchmarks: JMH microbenchmarks of the sketches ({@code sketches}) and the reference
 * workloads behind {@code skewer bench} ({@code workload}: W1 engine-only and end-to-end,
 * checkpoint cost, hot-key imbalance, sliding windows). Never part of the product jar nor of the
 * test run's timing; results are recorded in docs/benchmarks.md.
 */
package dev.skewer.benchmarks;

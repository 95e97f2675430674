/**
 * Synthetic workloads, deterministic by seed: the reference workloads W1–W3 of BENCHMARK.md, a
 * parameterised mix with disorder, late, malformed and future events for tests, and the live demo's
 * endless stream. Events carry the exact JSON record sent to Kafka.
 */
package dev.skewer.loadgen.workload;

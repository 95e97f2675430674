/**
 * The model-based randomized test of Skewer's delivery contracts. {@link
 * dev.skewer.model.HistoryGenerator} turns a seed into a history — a job, input records with
 * disorder, late, malformed, oversized and future-dated ones and salted hot keys, silent partitions
 * that go idle and wake up with what they held back, the coordinators' frontier handed to the
 * nodes, and failures: lost sends, stalled acknowledgements (back-pressure), partitions moved to
 * another process, process restarts — each with poll batches cut anywhere and checkpoints at any
 * time. A {@link dev.skewer.model.Cluster} plays it through the real node and coordinator tasks on
 * the real stage runtime, with Kafka's mock clients over an in-memory broker and a manual clock;
 * {@link dev.skewer.model.Contracts} then checks that every input event is in exactly one of {a
 * result, the late topic, the DLQ}, that the results equal the brute-force reference, that
 * revisions only go forward, and that the results are those of the same history without its
 * failures. See docs/testing.md for how to run, size and replay it.
 */
package dev.skewer.model;

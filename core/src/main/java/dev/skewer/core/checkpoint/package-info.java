/**
 * Checkpoints of per-partition state and the fencing epochs that order a partition's owners: kept
 * in Hazelcast IMaps (backup count 1) and mirrored to a compacted Kafka topic so a cluster that
 * lost every member at once resumes from them.
 */
package dev.skewer.core.checkpoint;

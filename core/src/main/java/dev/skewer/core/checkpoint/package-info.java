/**
 * Checkpoints of per-partition state and the fencing epochs that order a partition's owners: kept
 * in Hazelcast IMaps (backup count 1) and mirrored to a compacted Kafka topic so a cluster that
 * lost every member at once resumes from them. A checkpoint larger than one chunk is stored as
 * chunks plus a {@link dev.skewer.core.checkpoint.CheckpointManifest}, so no map entry or record
 * outgrows the chunk size.
 */
package dev.skewer.core.checkpoint;

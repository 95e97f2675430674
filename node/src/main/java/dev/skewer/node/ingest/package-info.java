/**
 * Stage 1 on the shared partition runtime: {@link dev.skewer.node.ingest.SourcePartitionTask} per
 * owned events partition (decode, route bad events to the DLQ and too-late ones to the late topic,
 * fold into {@link dev.skewer.node.aggregate.PartitionAggregator}, emit Partials and watermarks),
 * made and restored by {@link dev.skewer.node.ingest.SourceTasks}; {@link
 * dev.skewer.node.ingest.NodeVerticle} adds the hot-key reports. Polling, sending, checkpoints and
 * failover are the runtime's ({@code dev.skewer.stage}).
 */
package dev.skewer.node.ingest;

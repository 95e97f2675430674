/**
 * Stage 2 on the shared partition runtime: {@link
 * dev.skewer.coordinator.stream.PartialsPartitionTask} per owned partials partition (merge into
 * {@link dev.skewer.coordinator.merge.WindowMerger}, write closed windows' results through {@link
 * dev.skewer.coordinator.stream.ResultWriter}), made and restored by {@link
 * dev.skewer.coordinator.stream.MergeTasks}; {@link
 * dev.skewer.coordinator.stream.CoordinatorVerticle} adds the hot-key fanout policy. Polling,
 * sending, checkpoints and failover are the runtime's ({@code dev.skewer.stage}).
 */
package dev.skewer.coordinator.stream;

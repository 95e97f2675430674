/**
 * The partition runtime both stages share: a node and a coordinator are each one {@link
 * dev.skewer.stage.PartitionRuntime} driving one {@link dev.skewer.stage.PartitionTask} per owned
 * input partition. The runtime owns every rule about input and output: the poll loop with
 * back-pressure ({@link dev.skewer.stage.ConsumerLoop}), ordered sends with lost-send detection
 * ({@link dev.skewer.stage.OrderedSender}), and partition ownership ({@link
 * dev.skewer.stage.PartitionOwnership}: take-over with a new fencing epoch, restore on a worker,
 * seek, rewind, fenced retake, periodic and final checkpoints). A task sees only records, an output
 * and a clock; it never touches a consumer, a producer or the checkpoint store.
 */
package dev.skewer.stage;

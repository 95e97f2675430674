/**
 * The partition runtime both stages share: a node and a coordinator are each one {@link
 * dev.skewer.stage.PartitionRuntime} driving one {@link dev.skewer.stage.PartitionTask} per owned
 * input partition. The runtime owns every rule about input and output: the poll loop with
 * back-pressure ({@link dev.skewer.stage.ConsumerLoop}), ordered sends with lost-send detection
 * ({@link dev.skewer.stage.OrderedSender} for {@code at_least_once}; {@link
 * dev.skewer.stage.TransactionalSender}, one transactional producer per owned partition, for {@code
 * exactly_once}), and partition ownership ({@link dev.skewer.stage.PartitionOwnership}: take-over
 * with a new fencing epoch, restore on a worker, seek, rewind, fenced retake, periodic and final
 * checkpoints — with {@code exactly_once} each checkpoint one Kafka transaction). A task sees only
 * records, an output and a clock; it never touches a consumer, a producer or the checkpoint store.
 */
package dev.skewer.stage;

package dev.skewer.stage;

import dev.skewer.core.checkpoint.CapturedState;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The work of one stage on one input partition. The runtime creates a task through its {@link
 * TaskFactory} (on a worker thread) when it takes the partition over, then calls it on its event
 * loop only, never concurrently: records in offset order, the end of each poll batch, periodic
 * ticks, and snapshots for checkpoints. A snapshot is captured on the event loop and encoded on a
 * worker; until it has encoded, the runtime calls nothing else of the task (the partition's records
 * wait and its ticks are skipped), so the encoding may read the task's state without locks.
 * Everything a task emits goes through the {@link TaskOutput} it is given; the runtime decides when
 * it is sent, acknowledged and covered by a checkpoint.
 *
 * <p>Contract: after {@code restore(snapshot())} and the same records from the checkpoint's offset,
 * a task emits the same outputs as the original — replays are how failures are repaired.
 */
public interface PartitionTask {

  /**
   * Folds in one input record. Offsets increase strictly between calls. A record the task cannot
   * use is routed by the task itself (e.g. to a dead-letter topic), never thrown: an exception here
   * is treated as a bug and the partition is rewound to its last checkpoint.
   */
  void process(ConsumerRecord<byte[], byte[]> record, TaskOutput out);

  /**
   * Called once, when the partition starts consuming after its restore and seek (e.g. to announce
   * the new epoch downstream).
   */
  default void activated(TaskOutput out) {}

  /** After the records of one poll batch for this partition (e.g. emit what the batch closed). */
  void endOfBatch(TaskOutput out);

  /** Periodic work, every tick interval, with how long the partition has been silent. */
  void tick(PartitionActivity activity, TaskOutput out);

  /**
   * The state as of the last record processed, for a checkpoint: captured now (on the event loop,
   * cheap) and encoded by the result on a worker. Until {@link CapturedState#encode} returns, the
   * runtime does not call the task; whatever else may change the task meanwhile (a stage's own
   * timers) must change only what the capture copied.
   */
  CapturedState snapshot();

  /**
   * The checkpoint of the last {@link #snapshot()} is stored ({@code exactly_once}: committed).
   * Called on the event loop before the next snapshot is taken; never after a checkpoint that was
   * not stored (the runtime then drops the task). A task that changed its state in {@code
   * snapshot()} in a way its input does not determine may rely on that change only from here on:
   * until now a rewind could still restore an earlier checkpoint.
   */
  default void checkpointed(TaskOutput out) {}

  /** Called once when the runtime drops the task (revoked, rewound, fenced or stopped). */
  default void close() {}
}

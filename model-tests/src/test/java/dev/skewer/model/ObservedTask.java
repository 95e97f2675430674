package dev.skewer.model;

import dev.skewer.core.checkpoint.CapturedState;
import dev.skewer.stage.PartitionActivity;
import dev.skewer.stage.PartitionTask;
import dev.skewer.stage.TaskOutput;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A real stage task as the runtime drives it, with what the history needs to see from outside: how
 * far it has read, the processing time of its last tick and, for a node task, where the frontier it
 * judges by went up (at the offset of the checkpoint that adopted it, once that is stored).
 * Forwards every call unchanged.
 */
final class ObservedTask implements PartitionTask {

  /** Reads the frontier a node task judges by, and hears when it adopted a newer one. */
  interface FrontierWatch {
    long frontierMs(PartitionTask task);

    /** From input offset {@code position} on, events are judged against {@code frontierMs}. */
    void adopted(int partition, long position, long frontierMs);
  }

  final int partition;
  final long epoch;
  final PartitionTask task;
  private final FrontierWatch watch; // null: not a node task
  private volatile long nextOffset;
  private long frontierMs;
  private long snapshotOffset;
  private volatile long lastTickMs = Long.MIN_VALUE;
  private volatile boolean closed;

  ObservedTask(
      int partition, long epoch, long startOffset, PartitionTask task, FrontierWatch watch) {
    this.partition = partition;
    this.epoch = epoch;
    this.nextOffset = startOffset;
    this.task = task;
    this.watch = watch;
    this.frontierMs = watch == null ? Long.MIN_VALUE : watch.frontierMs(task);
  }

  @Override
  public void process(ConsumerRecord<byte[], byte[]> record, TaskOutput out) {
    nextOffset = record.offset() + 1;
    task.process(record, out);
  }

  @Override
  public void activated(TaskOutput out) {
    task.activated(out);
  }

  @Override
  public void endOfBatch(TaskOutput out) {
    task.endOfBatch(out);
  }

  @Override
  public void tick(PartitionActivity activity, TaskOutput out) {
    task.tick(activity, out);
    lastTickMs = activity.nowMs();
  }

  @Override
  public CapturedState snapshot() {
    snapshotOffset = nextOffset;
    return task.snapshot();
  }

  @Override
  public void checkpointed(TaskOutput out) {
    task.checkpointed(out);
    if (watch != null) {
      long f = watch.frontierMs(task);
      if (f > frontierMs) {
        frontierMs = f;
        watch.adopted(partition, snapshotOffset, f);
      }
    }
  }

  /** The frontier the task judges by (node tasks; on the runtime's context). */
  long frontierMs() {
    return watch == null ? Long.MIN_VALUE : watch.frontierMs(task);
  }

  @Override
  public void close() {
    closed = true;
    task.close();
  }

  /** The next input offset this task will read. */
  long nextOffset() {
    return nextOffset;
  }

  /** The processing time of the last tick this task had. */
  long lastTickMs() {
    return lastTickMs;
  }

  boolean closed() {
    return closed;
  }
}

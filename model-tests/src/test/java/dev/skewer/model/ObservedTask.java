package dev.skewer.model;

import dev.skewer.stage.PartitionActivity;
import dev.skewer.stage.PartitionTask;
import dev.skewer.stage.TaskOutput;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A real stage task as the runtime drives it, with what the history needs to see from outside: how
 * far it has read and how many ticks it has had. Forwards every call unchanged.
 */
final class ObservedTask implements PartitionTask {

  final int partition;
  final long epoch;
  final PartitionTask task;
  private volatile long nextOffset;
  private final AtomicLong ticks = new AtomicLong();
  private volatile boolean closed;

  ObservedTask(int partition, long epoch, long startOffset, PartitionTask task) {
    this.partition = partition;
    this.epoch = epoch;
    this.nextOffset = startOffset;
    this.task = task;
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
    ticks.incrementAndGet();
  }

  @Override
  public byte[] snapshot() {
    return task.snapshot();
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

  long ticks() {
    return ticks.get();
  }

  boolean closed() {
    return closed;
  }
}

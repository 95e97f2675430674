package dev.skewer.stage;

import dev.skewer.core.checkpoint.CapturedState;
import dev.skewer.core.checkpoint.Checkpoint;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * A task for the runtime's tests: counts the records it folds in (its whole state) and emits, per
 * record, {@code out} record {@code <value>} with key {@code <partition>/<offset>/<epoch>}; {@link
 * #activated} emits {@code announce} {@code <partition>/<epoch>}.
 */
final class CountingTask implements PartitionTask {

  static final String OUT = "out";
  static final String ANNOUNCE = "announce";

  final int partition;
  final long epoch;
  long count;
  boolean activated;
  boolean closed;
  int ticks;
  long lastSilentMs = -1;
  volatile RuntimeException failOnProcess;
  final List<String> checkpointCalls = new CopyOnWriteArrayList<>(); // "snapshot" / "checkpointed"
  volatile CountDownLatch encodeGate; // when set, each snapshot's encoding waits for it
  volatile boolean encoding; // from a snapshot's capture until its encoding returns
  volatile String encodedOn; // the thread of the last encoding
  volatile Runnable onCapture; // run once, on the event loop, by the next snapshot's capture
  final List<String> callsWhileEncoding = new CopyOnWriteArrayList<>();

  CountingTask(int partition, long epoch, long count) {
    this.partition = partition;
    this.epoch = epoch;
    this.count = count;
  }

  static CountingTask restore(int partition, long epoch, Optional<Checkpoint> cp) {
    return new CountingTask(
        partition, epoch, cp.map(c -> ByteBuffer.wrap(c.state()).getLong()).orElse(0L));
  }

  static long countIn(Checkpoint cp) {
    return ByteBuffer.wrap(cp.state()).getLong();
  }

  @Override
  public void activated(TaskOutput out) {
    activated = true;
    out.send(new ProducerRecord<>(ANNOUNCE, bytes(partition + "/" + epoch), new byte[0]));
  }

  @Override
  public void process(ConsumerRecord<byte[], byte[]> record, TaskOutput out) {
    noteIfEncoding("process");
    RuntimeException f = failOnProcess;
    if (f != null) {
      throw f;
    }
    count++;
    out.send(
        new ProducerRecord<>(
            OUT, bytes(partition + "/" + record.offset() + "/" + epoch), record.value()));
  }

  @Override
  public void endOfBatch(TaskOutput out) {
    noteIfEncoding("endOfBatch");
  }

  @Override
  public void tick(PartitionActivity activity, TaskOutput out) {
    noteIfEncoding("tick");
    ticks++;
    lastSilentMs = activity.silentMs();
  }

  @Override
  public CapturedState snapshot() {
    checkpointCalls.add("snapshot");
    noteIfEncoding("snapshot");
    Runnable hook = onCapture;
    if (hook != null) {
      onCapture = null;
      hook.run();
    }
    long captured = count;
    encoding = true;
    return () -> {
      try {
        CountDownLatch gate = encodeGate;
        if (gate != null && !gate.await(30, TimeUnit.SECONDS)) {
          throw new IllegalStateException("the test never opened the encode gate");
        }
        encodedOn = Thread.currentThread().getName();
        return ByteBuffer.allocate(8).putLong(captured).array();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      } finally {
        encoding = false;
      }
    };
  }

  private void noteIfEncoding(String call) {
    if (encoding) {
      callsWhileEncoding.add(call);
    }
  }

  @Override
  public void checkpointed(TaskOutput out) {
    noteIfEncoding("checkpointed");
    checkpointCalls.add("checkpointed");
  }

  @Override
  public void close() {
    closed = true;
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}

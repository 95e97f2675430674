package dev.skewer.coordinator.stream;

import dev.skewer.coordinator.merge.FinalResult;
import dev.skewer.coordinator.merge.WindowMerger;
import dev.skewer.core.checkpoint.CapturedState;
import dev.skewer.core.wire.Partial;
import dev.skewer.core.wire.PartialsMessage;
import dev.skewer.core.wire.Watermark;
import dev.skewer.core.wire.WireCodec;
import dev.skewer.core.wire.WireFormatException;
import dev.skewer.stage.PartitionActivity;
import dev.skewer.stage.PartitionTask;
import dev.skewer.stage.TaskOutput;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Stage 2 on one partials partition: decode Partials and watermarks into the partition's {@link
 * WindowMerger}; after each batch, write the results of the windows the global watermark closed
 * (through the {@link ResultWriter}). Runs on the coordinator's event loop.
 */
final class PartialsPartitionTask implements PartitionTask {

  private final MergeTasks shared;
  private final int partition;
  private final long epoch;
  private final WindowMerger merger;
  private final WrittenResults written; // results the previous owner wrote since the checkpoint

  PartialsPartitionTask(
      MergeTasks shared, int partition, long epoch, WindowMerger merger, WrittenResults written) {
    this.shared = shared;
    this.partition = partition;
    this.epoch = epoch;
    this.merger = merger;
    this.written = written;
  }

  @Override
  public void process(ConsumerRecord<byte[], byte[]> r, TaskOutput out) {
    PartialsMessage m;
    try {
      m = WireCodec.decode(r.value());
    } catch (WireFormatException e) {
      shared.invalid(r, e);
      return;
    }
    long lostBefore = merger.lostMessages();
    if (m instanceof Partial p) {
      shared.partialsIn().increment();
      long staleBefore = merger.stalePartials();
      long lateBefore = merger.latePartials();
      merger.accept(p);
      shared.partialsStale().increment(merger.stalePartials() - staleBefore);
      if (merger.latePartials() > lateBefore) {
        shared.latePartial(r, p);
      }
    } else if (m instanceof Watermark w) {
      if (!merger.accept(w)) {
        shared.partialsStale().increment();
      }
    }
    if (merger.lostMessages() > lostBefore) {
      shared.lostMessage(r, m);
    }
  }

  @Override
  public void endOfBatch(TaskOutput out) {
    merger.advance(
        (FinalResult result) -> shared.results().write(result, merger.watermarks(), written, out));
  }

  @Override
  public void tick(PartitionActivity activity, TaskOutput out) {
    // windows close on watermarks, which arrive as records
  }

  @Override
  public CapturedState snapshot() {
    return merger.capture();
  }

  /** The fencing epoch this owner holds the partition under. */
  long epoch() {
    return epoch;
  }

  WindowMerger merger() {
    return merger;
  }
}

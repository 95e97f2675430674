package dev.skewer.node.ingest;

import dev.skewer.core.checkpoint.CapturedState;
import dev.skewer.core.event.DlqReason;
import dev.skewer.core.wire.Partial;
import dev.skewer.core.wire.PartialsPartition;
import dev.skewer.core.wire.Watermark;
import dev.skewer.core.wire.WireCodec;
import dev.skewer.node.aggregate.PartitionAggregator;
import dev.skewer.node.hotkey.HotKeyDetector;
import dev.skewer.stage.PartitionActivity;
import dev.skewer.stage.PartitionTask;
import dev.skewer.stage.TaskOutput;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.record.TimestampType;

/**
 * Stage 1 on one events partition: decode each event; route bad ones to the DLQ and too-late ones
 * to the late topic; fold the rest into the partition's {@link PartitionAggregator}; after each
 * batch emit the Partials of the slices the watermark closed, then the partition's watermark to
 * every partials partition (same producer, so on every partials partition the watermark follows the
 * Partials it covers). Ticks mark the partition idle after {@code watermark.idle} of silence and,
 * with {@code watermark.finalizeAfterIdle}, finalize its open slices; an idle partition adopts the
 * coordinators' frontier at its checkpoints, once they are stored ({@link #snapshot}).
 *
 * <p>After a failover it skips the side records the previous owner already wrote (found by {@link
 * SideOutputScanner}), so replays do not duplicate them. Runs on the node's event loop.
 */
final class SourcePartitionTask implements PartitionTask {

  private final SourceTasks shared;
  private final int partition;
  private final PartitionAggregator aggregator;
  private final HotKeyDetector detector = new HotKeyDetector(HotKeyDetector.Config.defaults());
  private final Set<Long> alreadyRouted; // side records written by the previous owner
  private final long[] seq; // next sequence number per partials partition, this epoch
  private boolean idle;
  private boolean finalized; // idle for watermark.finalizeAfterIdle: end of input
  private boolean watermarkDirty = true;
  private Watermark broadcast;
  // the frontier the last snapshot adopted, until its checkpoint is stored; records that arrive
  // meanwhile wait, so each is judged against the frontier a replay from that checkpoint would use
  private long adopting = Long.MIN_VALUE;
  private final ArrayDeque<ConsumerRecord<byte[], byte[]>> waiting = new ArrayDeque<>();

  SourcePartitionTask(
      SourceTasks shared, int partition, PartitionAggregator aggregator, Set<Long> alreadyRouted) {
    this.shared = shared;
    this.partition = partition;
    this.aggregator = aggregator;
    this.alreadyRouted = alreadyRouted;
    this.seq = new long[shared.partialsPartitions()];
  }

  @Override
  public void activated(TaskOutput out) {
    watermarkDirty = true;
    emit(out); // announce the new epoch and the restored watermark
  }

  @Override
  public void process(ConsumerRecord<byte[], byte[]> r, TaskOutput out) {
    if (adopting != Long.MIN_VALUE) {
      waiting.add(r);
      return;
    }
    fold(r, out);
  }

  private void fold(ConsumerRecord<byte[], byte[]> r, TaskOutput out) {
    long nowMs = shared.clock().millis();
    shared.eventsIn().increment();
    var event = shared.event();
    DlqReason reason = shared.decoder().decode(r.value(), event);
    if (reason == null
        && event.eventTimeMs() > referenceTimeMs(r, nowMs) + shared.maxFutureSkewMs()) {
      reason = DlqReason.FUTURE_TIME;
    }
    if (reason != null) {
      route(r, out, shared.sideOutputs().dlq(r, reason, null, nowMs));
      return;
    }
    PartitionAggregator.Outcome outcome;
    try {
      outcome =
          aggregator.update(
              event.key(),
              event.eventTimeMs(),
              event.numeric(),
              event.distinctItem(),
              event.frequencyItem(),
              event.quantileValue(),
              event.dimensions());
    } catch (IllegalArgumentException refused) {
      // the aggregate refuses a value before changing anything (e.g. a lone surrogate)
      route(
          r,
          out,
          shared.sideOutputs().dlq(r, DlqReason.INVALID_VALUE, refused.getMessage(), nowMs));
      return;
    }
    detector.update(event.key(), nowMs);
    if (outcome == PartitionAggregator.Outcome.LATE) {
      route(
          r,
          out,
          shared
              .sideOutputs()
              .late(r, event.eventTimeMs(), aggregator.effectiveWatermarkMs(), nowMs));
    }
  }

  /**
   * What "now" is for the future-time check: the record's create time, so a replay decides the
   * same; the clock only for records without one.
   */
  private static long referenceTimeMs(ConsumerRecord<byte[], byte[]> r, long nowMs) {
    return r.timestampType() == TimestampType.CREATE_TIME && r.timestamp() >= 0
        ? r.timestamp()
        : nowMs;
  }

  /** Sends a side record unless the previous owner already wrote it. */
  private void route(
      ConsumerRecord<byte[], byte[]> r, TaskOutput out, ProducerRecord<byte[], byte[]> side) {
    if (!alreadyRouted.isEmpty() && alreadyRouted.remove(r.offset())) {
      shared.sideOutputs().skippedAlreadyRouted();
      return;
    }
    out.send(side);
  }

  @Override
  public void endOfBatch(TaskOutput out) {
    if (adopting != Long.MIN_VALUE) {
      return; // the batch is folded in once the adoption is decided
    }
    if (idle) {
      idle = false;
      finalized = false;
      watermarkDirty = true;
    }
    emit(out);
  }

  @Override
  public void tick(PartitionActivity activity, TaskOutput out) {
    if (adopting != Long.MIN_VALUE) {
      return;
    }
    if (!idle && activity.silentMs() >= shared.idleMs()) {
      // the open slices go out before the partition stops holding the global watermark back
      countPartials(aggregator.flushOpenSlices(p -> sendPartial(out, p)));
      idle = true;
      watermarkDirty = true;
    }
    if (idle
        && !finalized
        && shared.finalizeAfterIdleMs() >= 0
        && activity.silentMs() >= shared.finalizeAfterIdleMs()) {
      aggregator.finalizeOpenSlices();
      finalized = true;
      watermarkDirty = true;
    }
    emit(out);
  }

  /** Emits closed slices' Partials, then the watermark if anything changed. */
  private void emit(TaskOutput out) {
    int emitted = aggregator.emit(p -> sendPartial(out, p));
    countPartials(emitted);
    Watermark wm = aggregator.watermark(idle, finalized);
    if (emitted > 0 || watermarkDirty || !wm.equals(broadcast)) {
      broadcast = wm;
      watermarkDirty = false;
      String partials = shared.partialsTopic();
      for (int q = 0; q < seq.length; q++) {
        out.send(new ProducerRecord<>(partials, q, null, WireCodec.encode(wm.withSeq(seq[q]++))));
      }
      shared.watermarksOut().increment(seq.length);
    }
  }

  /** Sends a Partial to the partials partition of its key, numbered. */
  private void sendPartial(TaskOutput out, Partial p) {
    byte[] key = p.key().getBytes(StandardCharsets.UTF_8);
    int q = PartialsPartition.of(key, seq.length);
    out.send(
        new ProducerRecord<>(
            shared.partialsTopic(), q, key, WireCodec.encode(p.withSeq(seq[q]++))));
  }

  private void countPartials(int partialsEmitted) {
    if (partialsEmitted > 0) {
      shared.partialsOut().increment(partialsEmitted);
    }
  }

  /**
   * The aggregator's state. An idle partition adopts the coordinators' frontier here and only here,
   * and only once the checkpoint holding it is stored ({@link #checkpointed}): until then the
   * frontier is neither announced nor used, and records that arrive wait. So every event is judged
   * against the frontier of the checkpoint a replay would start from — a replay decides every event
   * exactly as the first pass did — and the coordinators never learn of a frontier a rewind could
   * take back. (A partition that is consuming never adopts it: its own watermark is what holds the
   * coordinators' back, and a replay, which always has records waiting, is never idle.)
   */
  @Override
  public CapturedState snapshot() {
    long frontier = shared.frontierMs();
    if (idle && frontier > aggregator.frontierMs()) {
      adopting = frontier;
      return aggregator.captureAdopting(frontier);
    }
    return aggregator.capture();
  }

  /** The checkpoint is stored: adopt the frontier it holds, then fold in what waited. */
  @Override
  public void checkpointed(TaskOutput out) {
    if (adopting == Long.MIN_VALUE) {
      return;
    }
    long before = aggregator.effectiveWatermarkMs();
    aggregator.adoptFrontier(adopting);
    adopting = Long.MIN_VALUE;
    watermarkDirty |= aggregator.effectiveWatermarkMs() != before;
    if (waiting.isEmpty()) {
      emit(out);
      return;
    }
    while (!waiting.isEmpty()) {
      fold(waiting.poll(), out);
    }
    endOfBatch(out);
  }

  @Override
  public void close() {
    waiting.clear(); // read again by the next owner from the checkpoint's offset
  }

  int partition() {
    return partition;
  }

  PartitionAggregator aggregator() {
    return aggregator;
  }

  HotKeyDetector detector() {
    return detector;
  }

  boolean idle() {
    return idle;
  }

  boolean finalized() {
    return finalized;
  }
}

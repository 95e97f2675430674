package dev.skewer.benchmarks.workload;

import dev.skewer.coordinator.merge.FinalResult;
import dev.skewer.coordinator.merge.ResultSink;
import dev.skewer.coordinator.merge.WindowMerger;
import dev.skewer.core.event.DecodedEvent;
import dev.skewer.core.event.DlqReason;
import dev.skewer.core.event.EventDecoder;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.window.SliceAssigner;
import dev.skewer.core.wire.Partial;
import dev.skewer.core.wire.PartialsMessage;
import dev.skewer.core.wire.PartialsPartition;
import dev.skewer.core.wire.Watermark;
import dev.skewer.core.wire.WireCodec;
import dev.skewer.node.aggregate.PartitionAggregator;

/**
 * Both stages without Kafka: one {@link PartitionAggregator} per source partition, one {@link
 * WindowMerger} per partials partition, Partials and Watermarks encoded and decoded with the wire
 * codec exactly as they would cross the partials topic, routed by the producer's default
 * partitioner. {@link #round} plays the part of the end of a poll batch.
 *
 * <p>Single-threaded; not thread-safe.
 */
public final class EnginePipeline {

  private final PartitionAggregator[] nodes;
  private final WindowMerger[] mergers;
  private final ResultSink sink;
  private final EventDecoder decoder;
  private final DecodedEvent event;
  private long partialsRouted;
  private long late;
  private long dlq;

  public EnginePipeline(
      JobSpec job, int sourcePartitions, int partialsPartitions, ResultSink sink) {
    SliceAssigner windows = SliceAssigner.of(job.window());
    long delay = job.watermark().delay().toMillis();
    long lateness = job.allowedLateness().toMillis();
    this.nodes = new PartitionAggregator[sourcePartitions];
    for (int p = 0; p < sourcePartitions; p++) {
      nodes[p] = new PartitionAggregator(p, 1, windows, delay, lateness, job.toSketchSpec());
    }
    this.mergers = new WindowMerger[partialsPartitions];
    for (int q = 0; q < partialsPartitions; q++) {
      mergers[q] = new WindowMerger(sourcePartitions, lateness, job.toSketchSpec());
    }
    this.sink = sink;
    this.decoder = new EventDecoder(job);
    this.event = DecodedEvent.forJob(job);
  }

  /** Folds in one decoded event on source partition {@code partition}. */
  public void update(
      int partition,
      String key,
      long eventTimeMs,
      double[] numeric,
      String distinctItem,
      String frequentItem,
      double quantileValue) {
    if (nodes[partition].update(
            key, eventTimeMs, numeric, distinctItem, frequentItem, quantileValue)
        == PartitionAggregator.Outcome.LATE) {
      late++;
    }
  }

  /** Decodes a JSON event and folds it in; returns the DLQ reason or null. */
  public DlqReason updateJson(int partition, byte[] json) {
    DlqReason reason = decoder.decode(json, event);
    if (reason != null) {
      dlq++;
      return reason;
    }
    update(
        partition,
        event.key(),
        event.eventTimeMs(),
        event.numeric(),
        event.distinctItem(),
        event.frequencyItem(),
        event.quantileValue());
    return null;
  }

  /** End of a batch on every partition: emit, route, broadcast watermarks, merge. */
  public void round() {
    for (PartitionAggregator node : nodes) {
      node.emit(this::route);
      byte[] watermark = WireCodec.encode(node.watermark(false));
      for (WindowMerger merger : mergers) {
        merger.accept((Watermark) WireCodec.decode(watermark));
      }
    }
    for (WindowMerger merger : mergers) {
      merger.advance(sink);
    }
  }

  /** End of input: close every open window on every partition and merge. */
  public void finish() {
    for (PartitionAggregator node : nodes) {
      node.finalizeOpenSlices();
    }
    round();
  }

  private void route(Partial p) {
    PartialsMessage decoded = WireCodec.decode(WireCodec.encode(p));
    int q = PartialsPartition.of(p.key(), mergers.length);
    mergers[q].accept((Partial) decoded);
    partialsRouted++;
  }

  public long partialsRouted() {
    return partialsRouted;
  }

  public long late() {
    return late;
  }

  public long dlq() {
    return dlq;
  }

  /** A sink that counts results and their events. */
  public static final class CountingSink implements ResultSink {
    private long results;
    private long events;

    @Override
    public void accept(FinalResult result) {
      results++;
      events += result.aggregate().count();
    }

    public long results() {
      return results;
    }

    public long events() {
      return events;
    }
  }
}

package dev.skewer.reconcile.internal;

import dev.skewer.coordinator.merge.FinalResult;
import dev.skewer.coordinator.merge.WindowMerger;
import dev.skewer.core.event.DecodedEvent;
import dev.skewer.core.event.DlqReason;
import dev.skewer.core.event.EventDecoder;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.result.ResultFormatter;
import dev.skewer.core.window.SliceAssigner;
import dev.skewer.core.wire.Partial;
import dev.skewer.node.aggregate.PartitionAggregator;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;

/**
 * The stream without I/O, for tests: one {@link PartitionAggregator} per input partition with the
 * job's delay and lateness, one {@link WindowMerger}, the {@link ResultFormatter}; records the
 * input, late, DLQ and results topics as {@link ConsumerRecord}s, with the headers the node writes.
 * Emission and watermarks advance every {@code emitEvery} input records, as poll batches would.
 */
final class MiniStream {

  final JobSpec job;
  final int partitions;
  private final EventDecoder decoder;
  private final DecodedEvent event;
  private final PartitionAggregator[] aggregators;
  private final WindowMerger merger;
  private final ResultFormatter formatter;
  private final long[] nextOffset;
  private final int emitEvery;
  private int sinceEmit;
  private Predicate<Partial> drop = p -> false;

  /** Events folded into the Partials {@link #dropPartials} dropped (their latest versions). */
  final Map<String, Long> droppedCounts = new HashMap<>();

  final List<ConsumerRecord<byte[], byte[]>> input = new ArrayList<>();
  final List<ConsumerRecord<byte[], byte[]>> late = new ArrayList<>();
  final List<ConsumerRecord<byte[], byte[]>> dlq = new ArrayList<>();
  final List<ConsumerRecord<byte[], byte[]>> results = new ArrayList<>();

  /** Every result emitted, by result key, last one wins. */
  final Map<String, FinalResult> latest = new HashMap<>();

  MiniStream(JobSpec job, int partitions, int emitEvery) {
    this.job = job;
    this.partitions = partitions;
    this.emitEvery = emitEvery;
    this.decoder = new EventDecoder(job);
    this.event = DecodedEvent.forJob(job);
    this.aggregators = new PartitionAggregator[partitions];
    SliceAssigner slices = SliceAssigner.of(job.window());
    for (int p = 0; p < partitions; p++) {
      aggregators[p] =
          new PartitionAggregator(
              p,
              1,
              slices,
              job.watermark().delay().toMillis(),
              job.allowedLateness().toMillis(),
              job.toSketchSpec());
    }
    this.merger =
        new WindowMerger(
            job.window(), partitions, job.allowedLateness().toMillis(), job.toSketchSpec());
    this.formatter = new ResultFormatter(job);
    this.nextOffset = new long[partitions];
  }

  /**
   * Loses every Partial matching {@code which} between node and coordinator (a dropped Partial).
   */
  void dropPartials(Predicate<Partial> which) {
    this.drop = which;
  }

  private void deliver(Partial p) {
    if (drop.test(p)) {
      droppedCounts.put(p.sourcePartition() + "/" + p.key() + "@" + p.sliceStartMs(), p.version());
      return;
    }
    merger.accept(p);
  }

  /** Sends one record to partition {@code p} (record timestamp {@code timestampMs}). */
  void send(int p, String json, long timestampMs) {
    byte[] value = json.getBytes(StandardCharsets.UTF_8);
    long offset = nextOffset[p]++;
    input.add(record(job.topics().events(), p, offset, timestampMs, null, value, null));
    DlqReason reason = decoder.decode(value, event);
    if (reason != null) {
      RecordHeaders h = sourceHeaders(p, offset);
      h.add(DlqReason.HEADER, reason.code().getBytes(StandardCharsets.UTF_8));
      dlq.add(record(job.topics().dlq(), 0, dlq.size(), timestampMs, null, value, h));
    } else {
      PartitionAggregator.Outcome o =
          aggregators[p].update(
              event.key(),
              event.eventTimeMs(),
              event.numeric(),
              event.distinctItem(),
              event.frequencyItem(),
              event.quantileValue(),
              event.dimensions());
      if (o == PartitionAggregator.Outcome.LATE) {
        RecordHeaders h = sourceHeaders(p, offset);
        h.add(
            "skewer.watermark",
            Long.toString(aggregators[p].watermarkMs()).getBytes(StandardCharsets.UTF_8));
        late.add(record(job.topics().late(), 0, late.size(), timestampMs, null, value, h));
      }
    }
    if (++sinceEmit >= emitEvery) {
      sinceEmit = 0;
      advance();
    }
  }

  private void advance() {
    for (PartitionAggregator a : aggregators) {
      a.emit(this::deliver);
      merger.accept(a.watermark(false));
    }
    merger.advance(
        r -> {
          String supersededBy =
              r.superseded() ? formatter.resultKey(r.key(), r.supersededByStartMs()) : null;
          String resultKey = formatter.resultKey(r.key(), r.windowStartMs());
          byte[] value =
              formatter.format(
                  r.key(),
                  r.windowStartMs(),
                  r.windowEndMs(),
                  r.aggregate(),
                  r.revision(),
                  r.dimensions(),
                  supersededBy);
          results.add(
              record(
                  job.topics().results(),
                  0,
                  results.size(),
                  r.windowEndMs(),
                  resultKey.getBytes(StandardCharsets.UTF_8),
                  value,
                  null));
          latest.put(resultKey, r);
        });
  }

  /** End of input: every partition finalizes its open slices. */
  void finish() {
    for (PartitionAggregator a : aggregators) {
      a.finalizeOpenSlices();
    }
    advance();
    advance();
  }

  /** A record written to the results topic later (a tampered or replayed result). */
  void appendResult(String resultKey, byte[] value) {
    results.add(
        record(
            job.topics().results(),
            0,
            results.size(),
            0,
            resultKey.getBytes(StandardCharsets.UTF_8),
            value,
            null));
  }

  private RecordHeaders sourceHeaders(int p, long offset) {
    RecordHeaders h = new RecordHeaders();
    h.add("skewer.source.topic", job.topics().events().getBytes(StandardCharsets.UTF_8));
    h.add("skewer.source.partition", Integer.toString(p).getBytes(StandardCharsets.UTF_8));
    h.add("skewer.source.offset", Long.toString(offset).getBytes(StandardCharsets.UTF_8));
    return h;
  }

  static ConsumerRecord<byte[], byte[]> record(
      String topic,
      int partition,
      long offset,
      long timestampMs,
      byte[] key,
      byte[] value,
      RecordHeaders headers) {
    return new ConsumerRecord<>(
        topic,
        partition,
        offset,
        timestampMs,
        TimestampType.CREATE_TIME,
        key == null ? -1 : key.length,
        value == null ? -1 : value.length,
        key,
        value,
        headers == null ? new RecordHeaders() : headers,
        Optional.empty());
  }
}

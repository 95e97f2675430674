package dev.skewer.coordinator.stream;

import dev.skewer.coordinator.CoordinatorMetrics;
import dev.skewer.coordinator.hotkey.FanoutPolicy;
import dev.skewer.coordinator.merge.FinalResult;
import dev.skewer.coordinator.merge.SourceWatermarks;
import dev.skewer.coordinator.query.ResultHandoff;
import dev.skewer.coordinator.query.StoredResult;
import dev.skewer.core.job.HoppingWindow;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.SessionWindow;
import dev.skewer.core.result.FormattedResult;
import dev.skewer.core.result.Provenance;
import dev.skewer.core.result.ResultFormatter;
import dev.skewer.sketches.Aggregate;
import dev.skewer.sketches.SketchSpec;
import dev.skewer.stage.TaskOutput;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.NavigableMap;
import java.util.function.LongUnaryOperator;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Writes a partials partition's final results: the JSON envelope keyed {@code <key>@<windowStart>}
 * to the results topic (an upsert log), skipping during a replay what the previous owner already
 * wrote and continuing its revision numbers; shows fixed windows' counts to the fanout policy. One
 * per coordinator, used on its event loop. (The top-K API ranks the results topic itself: see
 * {@code coordinator.query.ResultsView}.)
 */
final class ResultWriter {

  private final JobSpec job;
  private final ResultFormatter formatter;
  private final Counter resultsOut;
  private final Counter revisionsOut;
  private final LongUnaryOperator lateEventsInWindow; // window start -> late events read
  private final boolean sessions;
  private final SketchSpec sketchSpec;
  private FanoutPolicy fanout; // null: hot keys disabled
  private ResultHandoff handoff; // null: no query view in this process to hand results to

  /**
   * @param lateEventsInWindow the late events the coordinator has read from the late topic for the
   *     window starting at a time (the query side's counts)
   */
  ResultWriter(
      JobSpec job, MeterRegistry registry, String id, LongUnaryOperator lateEventsInWindow) {
    this.lateEventsInWindow = lateEventsInWindow;
    this.sessions = job.window() instanceof SessionWindow;
    this.job = job;
    this.formatter = new ResultFormatter(job);
    this.sketchSpec = job.toSketchSpec();
    this.resultsOut =
        Counter.builder(CoordinatorMetrics.RESULTS_OUT).tag("coordinator", id).register(registry);
    this.revisionsOut =
        Counter.builder(CoordinatorMetrics.RESULT_REVISIONS)
            .tag("coordinator", id)
            .register(registry);
  }

  void fanout(FanoutPolicy policy) {
    this.fanout = policy;
  }

  /** Hands every result written, once acknowledged, to this process's query view. */
  void handoff(ResultHandoff results) {
    this.handoff = results;
  }

  /**
   * Writes one result of partials partition {@code partition}; {@code written} holds what the
   * previous owner wrote since the checkpoint (replays), {@code watermarks} is the partition's view
   * of the sources (for the result's provenance).
   *
   * <p>A replay of sessions also does what the previous owner's merges did but the replay cannot
   * repeat: a replayed session may already contain sessions that the previous owner published live
   * before a late event bridged them (the replay merged them before ever publishing them, or the
   * previous owner's superseded records were lost), so every session of the key that was written
   * live and starts inside the replayed session is written superseded by it, as the first pass did
   * or would have; and a session written superseded is never written live again (sessions only ever
   * merge, so the replay is on its way to the same merge).
   */
  void write(FinalResult r, SourceWatermarks watermarks, WrittenResults written, TaskOutput out) {
    writeOne(r, watermarks, written, out);
    if (sessions && !r.superseded() && !written.isEmpty()) {
      supersedePublishedWithin(r, watermarks, written, out);
    }
  }

  /**
   * Writes superseded by {@code merged} each session of its key that starts after it and no later
   * than its last event, and whose last written record is live: sessions never split, so the replay
   * will never publish one of them live again, and without this record it would stay live.
   */
  private void supersedePublishedWithin(
      FinalResult merged, SourceWatermarks watermarks, WrittenResults written, TaskOutput out) {
    long lastEventMs = merged.windowEndMs() - 1;
    NavigableMap<Long, WrittenResults.Written> within =
        written.sessionsWithin(merged.key(), merged.windowStartMs(), lastEventMs);
    for (Map.Entry<Long, WrittenResults.Written> e : within.entrySet()) {
      WrittenResults.Written w = e.getValue();
      long endMs = w.sessionEndMs();
      if (w.superseded() || endMs == Long.MIN_VALUE || endMs < e.getKey()) {
        continue;
      }
      writeOne(
          new FinalResult(
              merged.key(),
              e.getKey(),
              endMs + 1,
              Aggregate.empty(sketchSpec),
              w.revision() + 1,
              null,
              merged.windowStartMs()),
          watermarks,
          written,
          out);
    }
  }

  private void writeOne(
      FinalResult r, SourceWatermarks watermarks, WrittenResults written, TaskOutput out) {
    String resultKey = formatter.resultKey(r.key(), r.windowStartMs());
    String supersededBy =
        r.superseded() ? formatter.resultKey(r.key(), r.supersededByStartMs()) : null;
    int revision = r.revision();
    Provenance provenance = provenance(r, watermarks);
    FormattedResult formatted = format(r, revision, supersededBy, provenance);
    byte[] value = formatted.bytes();
    boolean alreadyWritten = false;
    if (!written.isEmpty()) {
      // replaying after a failover: never write again what the previous owner wrote, never write
      // what reflects fewer events than it published (the replay passes through the earlier
      // states on its way back up), and continue its revision numbers
      String content = WrittenResults.content(new String(value, StandardCharsets.UTF_8));
      WrittenResults.Written w = written.get(resultKey);
      if (w != null) {
        if (w.content().equals(content)) {
          alreadyWritten = true;
        } else if (sessions && w.superseded()) {
          // merged into another session: never live again, and superseded once is enough
          alreadyWritten = true;
        } else if (!r.superseded() && r.aggregate().count() < w.count()) {
          alreadyWritten = true; // behind what was published: the replay catches up later
        } else {
          revision = Math.max(revision, w.revision() + 1);
          if (revision != r.revision()) {
            formatted = format(r, revision, supersededBy, provenance);
            value = formatted.bytes();
          }
          written.put(resultKey, revision, content);
        }
      }
    }
    if (!alreadyWritten) {
      ProducerRecord<byte[], byte[]> record =
          new ProducerRecord<>(
              job.topics().results(), resultKey.getBytes(StandardCharsets.UTF_8), value);
      if (handoff == null) {
        out.send(record);
      } else {
        ResultHandoff to = handoff;
        StoredResult stored =
            StoredResult.written(
                r.key(),
                r.windowStartMs(),
                r.windowEndMs(),
                revision,
                r.aggregate(),
                r.superseded(),
                formatted);
        out.send(record, (partition, offset) -> to.offer(partition, offset, stored));
      }
      resultsOut.increment();
      if (revision > 0) {
        revisionsOut.increment();
      }
    }
    // the fanout policy looks at fixed windows: not at sessions (one per user), and for hopping
    // windows only at those aligned on their size, so each event is seen once
    if (fanout != null && !r.superseded() && countsForFanout(r.windowStartMs())) {
      fanout.observeResult(r.key(), r.windowStartMs(), r.windowEndMs(), r.aggregate().count());
    }
  }

  private FormattedResult format(
      FinalResult r, int revision, String supersededBy, Provenance provenance) {
    return formatter.formatResult(
        r.key(),
        r.windowStartMs(),
        r.windowEndMs(),
        r.aggregate(),
        revision,
        r.dimensions(),
        supersededBy,
        provenance);
  }

  /** Who the result comes from, and what the sources had reported when it was written. */
  private Provenance provenance(FinalResult r, SourceWatermarks watermarks) {
    int expected = watermarks.sourcePartitions();
    int reporting = 0;
    for (int s = 0; s < expected; s++) {
      if (watermarks.reported(s) && watermarks.closeMs(s) >= r.windowEndMs()) {
        reporting++;
      }
    }
    long late = sessions ? -1 : lateEventsInWindow.applyAsLong(r.windowStartMs());
    return new Provenance(
        r.sources().partitions(),
        r.sources().epochs(),
        reporting,
        expected,
        watermarks.global(),
        late);
  }

  private boolean countsForFanout(long windowStartMs) {
    if (job.window() instanceof SessionWindow) {
      return false;
    }
    if (job.window() instanceof HoppingWindow h) {
      return Math.floorMod(windowStartMs, h.size().toMillis()) == 0;
    }
    return true;
  }
}

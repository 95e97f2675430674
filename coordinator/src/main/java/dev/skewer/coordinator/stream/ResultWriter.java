package dev.skewer.coordinator.stream;

import dev.skewer.coordinator.CoordinatorMetrics;
import dev.skewer.coordinator.hotkey.FanoutPolicy;
import dev.skewer.coordinator.merge.FinalResult;
import dev.skewer.coordinator.merge.SourceWatermarks;
import dev.skewer.core.job.HoppingWindow;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.SessionWindow;
import dev.skewer.core.result.Provenance;
import dev.skewer.core.result.ResultFormatter;
import dev.skewer.stage.TaskOutput;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
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
  private FanoutPolicy fanout; // null: hot keys disabled

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

  /**
   * Writes one result of partials partition {@code partition}; {@code written} holds what the
   * previous owner wrote since the checkpoint (replays), {@code watermarks} is the partition's view
   * of the sources (for the result's provenance).
   */
  void write(FinalResult r, SourceWatermarks watermarks, WrittenResults written, TaskOutput out) {
    String resultKey = formatter.resultKey(r.key(), r.windowStartMs());
    String supersededBy =
        r.superseded() ? formatter.resultKey(r.key(), r.supersededByStartMs()) : null;
    int revision = r.revision();
    Provenance provenance = provenance(r, watermarks);
    byte[] value = format(r, revision, supersededBy, provenance);
    boolean alreadyWritten = false;
    if (!written.isEmpty()) {
      // replaying after a failover: never write again what the previous owner wrote, and
      // continue its revision numbers
      String content = WrittenResults.content(new String(value, StandardCharsets.UTF_8));
      WrittenResults.Written w = written.get(resultKey);
      if (w != null) {
        if (w.content().equals(content)) {
          alreadyWritten = true;
        } else {
          revision = Math.max(revision, w.revision() + 1);
          if (revision != r.revision()) {
            value = format(r, revision, supersededBy, provenance);
          }
          written.put(resultKey, revision, content);
        }
      }
    }
    if (!alreadyWritten) {
      out.send(
          new ProducerRecord<>(
              job.topics().results(), resultKey.getBytes(StandardCharsets.UTF_8), value));
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

  private byte[] format(FinalResult r, int revision, String supersededBy, Provenance provenance) {
    return formatter.format(
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

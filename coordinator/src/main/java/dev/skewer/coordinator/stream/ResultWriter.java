package dev.skewer.coordinator.stream;

import dev.skewer.coordinator.CoordinatorMetrics;
import dev.skewer.coordinator.hotkey.FanoutPolicy;
import dev.skewer.coordinator.merge.FinalResult;
import dev.skewer.coordinator.merge.SourceWatermarks;
import dev.skewer.coordinator.topk.TopKStore;
import dev.skewer.coordinator.topk.WindowTopK;
import dev.skewer.core.job.HoppingWindow;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.SessionWindow;
import dev.skewer.core.result.Provenance;
import dev.skewer.core.result.ResultFormatter;
import dev.skewer.stage.TaskOutput;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.LongUnaryOperator;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a partials partition's final results: the JSON envelope keyed {@code <key>@<windowStart>}
 * to the results topic (an upsert log), skipping during a replay what the previous owner already
 * wrote and continuing its revision numbers; records fixed windows in the partition's top-K index
 * and the fanout policy, and publishes the changed windows' top-K lists (off the event loop). One
 * per coordinator, used on its event loop.
 */
final class ResultWriter {

  private static final Logger LOG = LoggerFactory.getLogger(ResultWriter.class);

  private final Vertx vertx;
  private final JobSpec job;
  private final ResultFormatter formatter;
  private final TopKStore topKStore;
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
      Vertx vertx,
      JobSpec job,
      TopKStore topKStore,
      MeterRegistry registry,
      String id,
      LongUnaryOperator lateEventsInWindow) {
    this.vertx = vertx;
    this.lateEventsInWindow = lateEventsInWindow;
    this.sessions = job.window() instanceof SessionWindow;
    this.job = job;
    this.formatter = new ResultFormatter(job);
    this.topKStore = topKStore;
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
   * previous owner wrote since the checkpoint (replays), {@code touchedWindows} collects the fixed
   * windows whose top-K changed, {@code watermarks} is the partition's view of the sources (for the
   * result's provenance).
   */
  void write(
      FinalResult r,
      SourceWatermarks watermarks,
      WrittenResults written,
      WindowTopK topK,
      Set<Long> touchedWindows,
      TaskOutput out) {
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
    // the top-K index and the fanout policy look at fixed windows: not at sessions (one per
    // user), and for hopping windows only at those aligned on their size, so each event is seen
    // once
    if (!r.superseded() && countsForIndexes(r.windowStartMs())) {
      topK.record(r.windowStartMs(), r.windowEndMs(), r.key(), r.aggregate().count());
      if (fanout != null) {
        fanout.observeResult(r.key(), r.windowStartMs(), r.windowEndMs(), r.aggregate().count());
      }
      touchedWindows.add(r.windowStartMs());
    }
  }

  /** Publishes the top-K lists of the windows a batch touched, on an ordered worker. */
  void publish(int partition, WindowTopK topK, Set<Long> touchedWindows) {
    if (touchedWindows.isEmpty()) {
      return;
    }
    List<Runnable> publications = new ArrayList<>();
    for (long windowStartMs : touchedWindows) {
      long windowEndMs = topK.windowEndMs(windowStartMs);
      var top = topK.top(windowStartMs);
      publications.add(() -> topKStore.publish(partition, windowStartMs, windowEndMs, top));
    }
    vertx
        .executeBlocking(
            () -> {
              publications.forEach(Runnable::run);
              return null;
            },
            true)
        .onFailure(e -> LOG.warn("top-K publication failed", e));
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

  private boolean countsForIndexes(long windowStartMs) {
    if (job.window() instanceof SessionWindow) {
      return false;
    }
    if (job.window() instanceof HoppingWindow h) {
      return Math.floorMod(windowStartMs, h.size().toMillis()) == 0;
    }
    return true;
  }
}

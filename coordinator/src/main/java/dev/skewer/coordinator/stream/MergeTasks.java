package dev.skewer.coordinator.stream;

import dev.skewer.coordinator.CoordinatorMetrics;
import dev.skewer.coordinator.merge.WindowMerger;
import dev.skewer.core.checkpoint.Checkpoint;
import dev.skewer.core.job.Guarantee;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.core.wire.Partial;
import dev.skewer.core.wire.PartialsMessage;
import dev.skewer.core.wire.WireFormatException;
import dev.skewer.stage.RateLimitedLog;
import dev.skewer.stage.TaskFactory;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the coordinator's {@link PartialsPartitionTask}s and holds what they share: the result
 * writer, the meters and the source partition count. A task restored from a checkpoint also gets
 * the results its previous owner wrote after that checkpoint ({@link WrittenResults}; {@code
 * at_least_once} only: with {@code exactly_once} those were aborted).
 */
final class MergeTasks implements TaskFactory<PartialsPartitionTask> {

  /**
   * Finds the results of one partials partition that a previous owner wrote since shortly before
   * {@code sinceMs}. May block.
   */
  @FunctionalInterface
  interface ResultsLookup {
    WrittenResults find(int partition, long sinceMs);
  }

  private static final Logger LOG = LoggerFactory.getLogger(MergeTasks.class);

  private final JobSpec job;
  private final ResultsLookup writtenResults;
  private final ResultWriter results;
  private final Counter partialsIn;
  private final Counter partialsStale;
  private final Counter partialsLate;
  private final Counter partialsInvalid;
  private final Counter partialsLost;
  private final RateLimitedLog anomalyLog = new RateLimitedLog(LOG, 10_000);
  private final RateLimitedLog invalidLog = new RateLimitedLog(LOG, 10_000);
  private final Clock clock;
  private volatile int sourcePartitions;

  MergeTasks(
      JobSpec job,
      KafkaSettings kafka,
      int sourcePartitions,
      ResultWriter results,
      MeterRegistry registry,
      String id,
      Clock clock) {
    this(
        job,
        sourcePartitions,
        results,
        registry,
        id,
        clock,
        (partition, sinceMs) ->
            WrittenResults.scan(
                kafka,
                job.topics().results(),
                partition,
                job.topics().partialsPartitions(),
                sinceMs));
  }

  /** Tasks that look up what a previous owner wrote through {@code writtenResults} (tests). */
  MergeTasks(
      JobSpec job,
      int sourcePartitions,
      ResultWriter results,
      MeterRegistry registry,
      String id,
      Clock clock,
      ResultsLookup writtenResults) {
    this.job = job;
    this.clock = clock;
    this.writtenResults = writtenResults;
    this.sourcePartitions = sourcePartitions;
    this.results = results;
    this.partialsIn = counter(registry, CoordinatorMetrics.PARTIALS_IN, id);
    this.partialsStale = counter(registry, CoordinatorMetrics.PARTIALS_STALE, id);
    this.partialsLate = counter(registry, CoordinatorMetrics.PARTIALS_LATE, id);
    this.partialsInvalid = counter(registry, CoordinatorMetrics.PARTIALS_INVALID, id);
    this.partialsLost = counter(registry, CoordinatorMetrics.PARTIALS_LOST, id);
  }

  private static Counter counter(MeterRegistry registry, String name, String id) {
    return Counter.builder(name).tag("coordinator", id).register(registry);
  }

  @Override
  public PartialsPartitionTask restore(int partition, long epoch, Optional<Checkpoint> checkpoint) {
    long lateness = job.allowedLateness().toMillis();
    int sources = sourcePartitions;
    WindowMerger merger =
        checkpoint.isPresent()
            ? WindowMerger.restore(checkpoint.get().state(), sources, lateness, job.toSketchSpec())
            : new WindowMerger(sources, lateness, job.toSketchSpec());
    // at_least_once: what an earlier owner wrote since the checkpoint; without one, an earlier
    // owner (epoch > 1: a rewind or take-over before the first checkpoint) may have written any
    // result. exactly_once: what the previous owner wrote after its checkpoint was aborted, unseen
    WrittenResults written =
        job.guarantee() != Guarantee.AT_LEAST_ONCE
            ? WrittenResults.none()
            : checkpoint.isPresent()
                ? writtenResults.find(partition, checkpoint.get().createdMs())
                : epoch > 1 ? writtenResults.find(partition, 0) : WrittenResults.none();
    return new PartialsPartitionTask(this, partition, epoch, merger, written);
  }

  /** The events topic grew: mergers created from now on know the new count. */
  void sourcePartitions(int n) {
    sourcePartitions = n;
  }

  int sourcePartitions() {
    return sourcePartitions;
  }

  void invalid(ConsumerRecord<byte[], byte[]> r, WireFormatException e) {
    partialsInvalid.increment();
    invalidLog.warn(
        clock.millis(),
        "invalid partials record topic=[{}] partition=[{}] offset=[{}]: {}",
        r.topic(),
        r.partition(),
        r.offset(),
        e.getMessage());
  }

  /**
   * A Partial for a result already dropped: nodes send none after announcing the lateness watermark
   * that drops it, so this is a zombie's or a bug — counted and logged, never silent.
   */
  void latePartial(ConsumerRecord<byte[], byte[]> r, Partial p) {
    partialsLate.increment();
    anomalyLog.warn(
        clock.millis(),
        "Partial for an already dropped result, ignored: topic=[{}] partition=[{}] offset=[{}]"
            + " source=[{}] epoch=[{}] key=[{}] slice=[{}, {})",
        r.topic(),
        r.partition(),
        r.offset(),
        p.sourcePartition(),
        p.epoch(),
        p.key(),
        p.sliceStartMs(),
        p.sliceEndMs());
  }

  /** A node's message was missing before this one: its watermarks wait for its replay. */
  void lostMessage(ConsumerRecord<byte[], byte[]> r, PartialsMessage m) {
    partialsLost.increment();
    anomalyLog.warn(
        clock.millis(),
        "a message of a source partition is missing before topic=[{}] partition=[{}]"
            + " offset=[{}] ({}): its watermarks are held back until it replays",
        r.topic(),
        r.partition(),
        r.offset(),
        m);
  }

  ResultWriter results() {
    return results;
  }

  Counter partialsIn() {
    return partialsIn;
  }

  Counter partialsStale() {
    return partialsStale;
  }
}

package dev.skewer.node.ingest;

import dev.skewer.core.checkpoint.Checkpoint;
import dev.skewer.core.event.DecodedEvent;
import dev.skewer.core.event.EventDecoder;
import dev.skewer.core.job.Guarantee;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.core.window.SliceAssigner;
import dev.skewer.node.aggregate.PartitionAggregator;
import dev.skewer.stage.TaskFactory;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Makes the node's {@link SourcePartitionTask}s and holds what they share: the job's decoding and
 * window rules, the side outputs, the meters and the clock. A task restored from a checkpoint also
 * gets the offsets its previous owner already routed to a side topic after that checkpoint ({@code
 * at_least_once} only: with {@code exactly_once} those were aborted).
 */
final class SourceTasks implements TaskFactory<SourcePartitionTask> {

  /**
   * Finds the offsets of one events partition, at or after {@code fromOffset}, that already have a
   * record in a side topic (late or DLQ), written since shortly before {@code sinceMs}. May block.
   */
  @FunctionalInterface
  interface RoutedOffsets {
    Set<Long> find(int partition, long fromOffset, long sinceMs);
  }

  private final JobSpec job;
  private final Clock clock;
  private final SliceAssigner slices;
  private final EventDecoder decoder;
  private final DecodedEvent event;
  private final SideOutputs sideOutputs;
  private final int partialsPartitions;
  private final long delayMs;
  private final long latenessMs;
  private final long idleMs;
  private final long finalizeAfterIdleMs; // -1: never
  private final long maxFutureSkewMs;
  private final Counter eventsIn;
  private final Counter partialsOut;
  private final Counter watermarksOut;
  private final RoutedOffsets routed;
  private volatile long frontierMs = Long.MIN_VALUE;

  SourceTasks(
      JobSpec job,
      KafkaSettings kafka,
      int partialsPartitions,
      MeterRegistry registry,
      String nodeId,
      Clock clock) {
    this(
        job,
        partialsPartitions,
        registry,
        nodeId,
        clock,
        (partition, fromOffset, sinceMs) ->
            SideOutputScanner.routedOffsets(
                kafka,
                List.of(job.topics().late(), job.topics().dlq()),
                job.topics().events(),
                partition,
                fromOffset,
                sinceMs));
  }

  /** Tasks that look up what a previous owner routed through {@code routed} (tests). */
  SourceTasks(
      JobSpec job,
      int partialsPartitions,
      MeterRegistry registry,
      String nodeId,
      Clock clock,
      RoutedOffsets routed) {
    this.job = job;
    this.routed = routed;
    this.clock = clock;
    this.partialsPartitions = partialsPartitions;
    this.slices = SliceAssigner.of(job.window());
    this.decoder = new EventDecoder(job);
    this.event = DecodedEvent.forJob(job);
    this.sideOutputs = new SideOutputs(job.topics(), registry, nodeId);
    this.delayMs = job.watermark().delay().toMillis();
    this.latenessMs = job.allowedLateness().toMillis();
    this.idleMs = job.watermark().idle().toMillis();
    Duration finalize = job.watermark().finalizeAfterIdle();
    this.finalizeAfterIdleMs = finalize == null ? -1 : finalize.toMillis();
    this.maxFutureSkewMs = job.watermark().maxFutureSkew().toMillis();
    this.eventsIn = Counter.builder(NodeMetrics.EVENTS_IN).tag("node", nodeId).register(registry);
    this.partialsOut =
        Counter.builder(NodeMetrics.PARTIALS_OUT).tag("node", nodeId).register(registry);
    this.watermarksOut =
        Counter.builder(NodeMetrics.WATERMARKS_OUT).tag("node", nodeId).register(registry);
  }

  @Override
  public SourcePartitionTask restore(int partition, long epoch, Optional<Checkpoint> checkpoint) {
    PartitionAggregator aggregator =
        checkpoint.isPresent()
            ? PartitionAggregator.restore(
                checkpoint.get().state(), epoch, slices, delayMs, latenessMs, job.toSketchSpec())
            : new PartitionAggregator(
                partition, epoch, slices, delayMs, latenessMs, job.toSketchSpec());
    // at_least_once: what an earlier owner routed since the checkpoint; without one, an earlier
    // owner (epoch > 1: a rewind or take-over before the first checkpoint) may have routed any
    // offset. exactly_once: what the previous owner wrote after its checkpoint was aborted, unseen
    Set<Long> alreadyRouted =
        job.guarantee() != Guarantee.AT_LEAST_ONCE
            ? Set.of()
            : checkpoint.isPresent()
                ? routed.find(
                    partition, checkpoint.get().nextOffset(), checkpoint.get().createdMs())
                : epoch > 1 ? routed.find(partition, 0, 0) : Set.of();
    return new SourcePartitionTask(this, partition, aggregator, alreadyRouted);
  }

  Clock clock() {
    return clock;
  }

  EventDecoder decoder() {
    return decoder;
  }

  /** The decoding scratch space, reused for every event (event loop only). */
  DecodedEvent event() {
    return event;
  }

  SideOutputs sideOutputs() {
    return sideOutputs;
  }

  String partialsTopic() {
    return job.topics().partials();
  }

  int partialsPartitions() {
    return partialsPartitions;
  }

  /**
   * Silence after which a partition is idle: {@code watermark.idle}, or {@code finalizeAfterIdle}
   * when that is shorter (a partition whose input has ended is idle, too).
   */
  long idleMs() {
    return finalizeAfterIdleMs >= 0 ? Math.min(idleMs, finalizeAfterIdleMs) : idleMs;
  }

  long finalizeAfterIdleMs() {
    return finalizeAfterIdleMs;
  }

  long maxFutureSkewMs() {
    return maxFutureSkewMs;
  }

  /** The coordinators' frontier as last read (refreshed by the node off the event loop). */
  long frontierMs() {
    return frontierMs;
  }

  void frontierMs(long value) {
    if (value > frontierMs) {
      frontierMs = value;
    }
  }

  Counter eventsIn() {
    return eventsIn;
  }

  Counter partialsOut() {
    return partialsOut;
  }

  Counter watermarksOut() {
    return watermarksOut;
  }
}

package dev.skewer.loadgen.reference;

import dev.skewer.loadgen.partition.EventPartitioner;
import dev.skewer.loadgen.workload.EventKind;
import dev.skewer.loadgen.workload.GeneratedEvent;
import dev.skewer.sketches.SketchSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Brute-force ground truth for tumbling event-time windows, computed from the generated events in
 * send order exactly as a node routes them.
 *
 * <p>Per source partition it tracks the watermark {@code max event time seen - delay}. For each
 * event, in order:
 *
 * <ol>
 *   <li>MALFORMED and FUTURE events go to {@link #dlq()} and do not move the watermark;
 *   <li>with {@code wm} the partition's watermark before this event, the event is too late iff
 *       {@code windowEnd + allowedLateness <= wm}: it goes to {@link #late()};
 *   <li>otherwise it updates its (key, window); if {@code windowEnd <= wm} the window expects a
 *       revision;
 *   <li>the partition's watermark becomes {@code max(event times) - delay}.
 * </ol>
 *
 * An event's source partition is the one the producer sent it to: {@link #accept(GeneratedEvent,
 * int)} takes it from the producer (with hot-key salting the record key may be {@code key#i} and
 * the partition depends on the hot-key table of the moment); {@link #accept(GeneratedEvent)}
 * computes Kafka's default keyed partition of the record key (salting off). Either way the
 * aggregation key is the bare {@link GeneratedEvent#key()}.
 *
 * <p>A LATE-kind event may well be on time (its partition's watermark may lag): the simulation
 * decides, never the kind.
 *
 * <p>Not thread-safe: feed it from one thread, read it after handing it over (e.g. after {@code
 * LoadProducer.run} returns).
 */
public final class ExactReference {

  /** Where an event went. */
  public enum Route {
    WINDOW,
    LATE,
    DLQ
  }

  private final long windowSizeMs;
  private final long delayMs;
  private final long allowedLatenessMs;
  private final int partitions;
  private final SketchSpec sketchSpec;
  private final long[] maxEventTimeMs;
  private final boolean[] seen;
  private final double[] numeric;
  private final Map<WindowKey, ExactWindow> windows = new HashMap<>();
  private final List<GeneratedEvent> late = new ArrayList<>();
  private final List<GeneratedEvent> dlq = new ArrayList<>();
  private long totalCount;

  /**
   * @param sketchSpec the job's spec for the reference aggregates, or {@code null} for exact
   *     count/sum/min/max only
   */
  public ExactReference(
      long windowSizeMs,
      long delayMs,
      long allowedLatenessMs,
      int partitions,
      SketchSpec sketchSpec) {
    if (windowSizeMs < 1) {
      throw new IllegalArgumentException("windowSizeMs must be >= 1: " + windowSizeMs);
    }
    if (delayMs < 0) {
      throw new IllegalArgumentException("delayMs must be >= 0: " + delayMs);
    }
    if (allowedLatenessMs < 0) {
      throw new IllegalArgumentException("allowedLatenessMs must be >= 0: " + allowedLatenessMs);
    }
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be >= 1: " + partitions);
    }
    this.windowSizeMs = windowSizeMs;
    this.delayMs = delayMs;
    this.allowedLatenessMs = allowedLatenessMs;
    this.partitions = partitions;
    this.sketchSpec = sketchSpec;
    this.maxEventTimeMs = new long[partitions];
    Arrays.fill(maxEventTimeMs, Long.MIN_VALUE);
    this.seen = new boolean[partitions];
    this.numeric = new double[sketchSpec == null ? 0 : sketchSpec.numericFields()];
  }

  public static ExactReference of(
      Duration windowSize,
      Duration delay,
      Duration allowedLateness,
      int partitions,
      SketchSpec sketchSpec) {
    return new ExactReference(
        windowSize.toMillis(),
        delay.toMillis(),
        allowedLateness.toMillis(),
        partitions,
        sketchSpec);
  }

  /**
   * Folds in the next event in send order, on Kafka's default partition of its record key, and says
   * where it went.
   */
  public Route accept(GeneratedEvent event) {
    if (event.kind() == EventKind.MALFORMED || event.kind() == EventKind.FUTURE) {
      dlq.add(event);
      return Route.DLQ;
    }
    return accept(event, EventPartitioner.partition(event.recordKey(), partitions));
  }

  /** Folds in the next event in send order, sent to source partition {@code p}. */
  public Route accept(GeneratedEvent event, int p) {
    if (p < 0 || p >= partitions) {
      throw new IllegalArgumentException("partition must be in [0, " + partitions + "): " + p);
    }
    if (event.kind() == EventKind.MALFORMED || event.kind() == EventKind.FUTURE) {
      dlq.add(event);
      return Route.DLQ;
    }
    long ts = event.eventTimeMs();
    long windowStartMs = Math.floorDiv(ts, windowSizeMs) * windowSizeMs;
    long windowEndMs = windowStartMs + windowSizeMs;
    boolean hasWatermark = seen[p];
    long wm = hasWatermark ? maxEventTimeMs[p] - delayMs : Long.MIN_VALUE;
    if (hasWatermark && windowEndMs + allowedLatenessMs <= wm) {
      late.add(event);
      return Route.LATE;
    }
    WindowKey windowKey = new WindowKey(event.key(), windowStartMs);
    ExactWindow window = windows.get(windowKey);
    if (window == null) {
      window = new ExactWindow(event.key(), windowStartMs, windowEndMs, sketchSpec);
      windows.put(windowKey, window);
    }
    if (numeric.length > 0) {
      Arrays.fill(numeric, Double.NaN);
      numeric[0] = event.value();
    }
    window.update(p, event.value(), numeric, event.user(), hasWatermark && windowEndMs <= wm);
    totalCount++;
    if (!hasWatermark || ts > maxEventTimeMs[p]) {
      maxEventTimeMs[p] = ts;
      seen[p] = true;
    }
    return Route.WINDOW;
  }

  /** Every (key, window) that received an event; unmodifiable, live view. */
  public Map<WindowKey, ExactWindow> windows() {
    return Collections.unmodifiableMap(windows);
  }

  /** The events that were too late, in send order; unmodifiable, live view. */
  public List<GeneratedEvent> late() {
    return Collections.unmodifiableList(late);
  }

  /** The MALFORMED and FUTURE events, in send order; unmodifiable, live view. */
  public List<GeneratedEvent> dlq() {
    return Collections.unmodifiableList(dlq);
  }

  /** How many events were aggregated into windows (the sum of all window counts). */
  public long totalCount() {
    return totalCount;
  }

  /** The partition's current watermark, or {@code Long.MIN_VALUE} before its first event. */
  public long watermarkMs(int partition) {
    return seen[partition] ? maxEventTimeMs[partition] - delayMs : Long.MIN_VALUE;
  }

  public int partitions() {
    return partitions;
  }

  public long windowSizeMs() {
    return windowSizeMs;
  }

  public long delayMs() {
    return delayMs;
  }

  public long allowedLatenessMs() {
    return allowedLatenessMs;
  }

  /** The spec of the reference aggregates, or {@code null}. */
  public SketchSpec sketchSpec() {
    return sketchSpec;
  }
}

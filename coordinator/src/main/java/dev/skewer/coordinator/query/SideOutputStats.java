package dev.skewer.coordinator.query;

import dev.skewer.core.event.DecodedEvent;
import dev.skewer.core.event.DlqReason;
import dev.skewer.core.event.EventDecoder;
import dev.skewer.core.job.HoppingWindow;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.SessionWindow;
import dev.skewer.core.job.TumblingWindow;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * What the late and DLQ topics say: totals, rates, late events per window, DLQ records per reason,
 * and the lateness histogram.
 *
 * <p><b>Lateness.</b> A node routes an event to the late topic when every window it belongs to
 * ended at least the allowed lateness before the watermark, and writes that watermark into the
 * {@value #WATERMARK_HEADER} header. For each such event this class records the <em>lateness it
 * needed</em>: {@code watermark − end of the last window containing it + 1} ms, the smallest
 * allowed lateness that would have kept it (an event is kept while {@code end + lateness >
 * watermark}). Sessions use {@code event time + gap} as the end (the session a lone event would
 * open). Records without the header or whose value cannot be decoded are counted but not measured.
 *
 * <p>Late events per window are attributed to every window containing the event time (tumbling,
 * hopping; not sessions) and kept for the {@value #MAX_WINDOWS} most recent windows. Thread-safe:
 * one writer (the view's consumer thread), any number of readers.
 */
public final class SideOutputStats {

  /** The late-topic header with the watermark the node judged the event against. */
  public static final String WATERMARK_HEADER = "skewer.watermark";

  static final int MAX_WINDOWS = 10_000;

  private final EventDecoder decoder;
  private final DecodedEvent event;
  private final JobSpec job;
  private final LatenessHistogram lateness = new LatenessHistogram();
  private final RateWindow lateRate = new RateWindow();
  private final RateWindow dlqRate = new RateWindow();
  private final AtomicLong late = new AtomicLong();
  private final AtomicLong lateUnmeasured = new AtomicLong();
  private final AtomicLong dlq = new AtomicLong();
  private final Map<String, AtomicLong> dlqByReason = new ConcurrentHashMap<>();
  private final ConcurrentSkipListMap<Long, AtomicLong> lateByWindow =
      new ConcurrentSkipListMap<>();

  public SideOutputStats(JobSpec job) {
    this.job = job;
    this.decoder = new EventDecoder(job);
    this.event = DecodedEvent.forJob(job);
  }

  /** Folds in one late-topic record. Single writer. */
  public void onLate(byte[] value, Headers headers, long timestampMs) {
    late.incrementAndGet();
    lateRate.add(timestampMs);
    if (value == null || decoder.decode(value, event) != null) {
      lateUnmeasured.incrementAndGet();
      return;
    }
    long t = event.eventTimeMs();
    long lastEndMs;
    if (job.window() instanceof TumblingWindow w) {
      long size = w.size().toMillis();
      long start = Math.floorDiv(t, size) * size;
      countWindow(start);
      lastEndMs = start + size;
    } else if (job.window() instanceof HoppingWindow h) {
      long size = h.size().toMillis();
      long hop = h.hop().toMillis();
      long lastStart = Math.floorDiv(t, hop) * hop;
      for (long start = lastStart; start > t - size; start -= hop) {
        countWindow(start);
      }
      lastEndMs = lastStart + size;
    } else {
      lastEndMs = t + ((SessionWindow) job.window()).gap().toMillis();
    }
    Long watermark = longHeader(headers, WATERMARK_HEADER);
    if (watermark == null) {
      lateUnmeasured.incrementAndGet();
      return;
    }
    lateness.record(watermark - lastEndMs + 1);
  }

  /** Folds in one DLQ-topic record. Single writer. */
  public void onDlq(Headers headers, long timestampMs) {
    dlq.incrementAndGet();
    dlqRate.add(timestampMs);
    Header h = headers.lastHeader(DlqReason.HEADER);
    String reason = h == null ? "unknown" : new String(h.value(), StandardCharsets.UTF_8);
    if (reason.length() > 64) {
      reason = reason.substring(0, 64);
    }
    if (dlqByReason.size() < 64 || dlqByReason.containsKey(reason)) {
      dlqByReason.computeIfAbsent(reason, r -> new AtomicLong()).incrementAndGet();
    } else {
      dlqByReason.computeIfAbsent("other", r -> new AtomicLong()).incrementAndGet();
    }
  }

  private void countWindow(long startMs) {
    lateByWindow.computeIfAbsent(startMs, s -> new AtomicLong()).incrementAndGet();
    while (lateByWindow.size() > MAX_WINDOWS) {
      lateByWindow.pollFirstEntry();
    }
  }

  private static Long longHeader(Headers headers, String name) {
    Header h = headers.lastHeader(name);
    if (h == null) {
      return null;
    }
    try {
      return Long.parseLong(new String(h.value(), StandardCharsets.UTF_8).trim());
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** Late events read so far. */
  public long late() {
    return late.get();
  }

  /** Late events that could not be measured (no watermark header, undecodable value). */
  public long lateUnmeasured() {
    return lateUnmeasured.get();
  }

  /** Late events whose event time falls in the window starting at {@code startMs}. */
  public long lateInWindow(long startMs) {
    AtomicLong n = lateByWindow.get(startMs);
    return n == null ? 0 : n.get();
  }

  public double latePerSecond(long nowMs) {
    return lateRate.perSecond(nowMs);
  }

  public long dlq() {
    return dlq.get();
  }

  public double dlqPerSecond(long nowMs) {
    return dlqRate.perSecond(nowMs);
  }

  /** DLQ records per reason code. */
  public Map<String, Long> dlqByReason() {
    Map<String, Long> out = new TreeMap<>();
    dlqByReason.forEach((k, v) -> out.put(k, v.get()));
    return out;
  }

  /** The lateness each measured late event needed (see the class comment). */
  public LatenessHistogram lateness() {
    return lateness;
  }
}

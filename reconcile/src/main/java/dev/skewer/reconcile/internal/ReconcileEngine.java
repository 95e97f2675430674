package dev.skewer.reconcile.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.skewer.core.event.DecodedEvent;
import dev.skewer.core.event.DlqReason;
import dev.skewer.core.event.EventDecoder;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.window.SliceAssigner;
import dev.skewer.core.window.WindowShape;
import dev.skewer.reconcile.AccountingIssue;
import dev.skewer.reconcile.ReconcileProgress;
import dev.skewer.reconcile.ReconcileReport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * A reconciliation without the broker: feed it the late and DLQ records ({@link #side}), then
 * {@link #sealSide()}, the results-topic records ({@link #result}) and the input records ({@link
 * #event}) in any order of partitions but in offset order within each, then {@link #finish}. The
 * records are sorted by key in bounded memory ({@link ExternalSorter}), then every key is
 * recomputed and compared by a {@link KeyReconciler}. Not thread-safe.
 */
public final class ReconcileEngine implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final JobSpec job;
  private final long fromMs;
  private final long toMs;
  private final long reachMs;
  private final double sigmas;
  private final long budgetBytes;
  private final Tally tally;
  private final SideIndex side = new SideIndex();
  private final ExternalSorter sorter;
  private final SortRecord.Writer writer = new SortRecord.Writer();
  private final Classifier classifier;

  /**
   * @param fromMs the range start (inclusive)
   * @param toMs the range end (exclusive)
   * @param sigmas the distinct-count flag threshold in relative standard errors
   * @param maxListed the most differences, flags and issues listed each
   * @param budgetBytes the sort buffer
   * @param spillDir where run files go (null: the temp directory)
   */
  public ReconcileEngine(
      JobSpec job,
      long fromMs,
      long toMs,
      double sigmas,
      int maxListed,
      long budgetBytes,
      Path spillDir) {
    this.job = job;
    this.fromMs = fromMs;
    this.toMs = toMs;
    this.reachMs = reachMs(job);
    this.sigmas = sigmas;
    this.budgetBytes = budgetBytes;
    this.tally = new Tally(maxListed);
    this.sorter = new ExternalSorter(SortRecord.ORDER, budgetBytes, spillDir);
    this.classifier = new Classifier(job, side, tally, sorter, writer, fromMs, toMs, reachMs);
  }

  /**
   * How far beyond the range event times matter: the session gap (the events a gap either side
   * decide where the range's sessions start and end), 0 for windows.
   */
  public static long reachMs(JobSpec job) {
    WindowShape shape = SliceAssigner.of(job.window()).shape();
    return shape instanceof WindowShape.Session s ? s.gapMs() : 0;
  }

  public Tally tally() {
    return tally;
  }

  /** A record of the late topic ({@code late}) or the DLQ. */
  public void side(ConsumerRecord<byte[], byte[]> r, boolean late) {
    indexSide(r, late, job.topics().events(), side, tally);
  }

  /** Ends the side records; input records may follow. */
  public void sealSide() {
    side.seal();
  }

  /** A results-topic record: kept when its interval starts inside the range. */
  public void result(ConsumerRecord<byte[], byte[]> r) {
    if (r.value() == null) {
      return; // a tombstone
    }
    JsonNode root;
    try {
      root = JSON.readTree(r.value());
    } catch (IOException e) {
      tally.resultsUnreadable++;
      return;
    }
    Long start = KeyReconciler.startOf(root);
    JsonNode key = root.path(job.output().keyField());
    if (start == null || !key.isValueNode() || key.isNull()) {
      tally.resultsUnreadable++;
      return;
    }
    if (start >= fromMs && start < toMs) {
      sorter.add(writer.result(key.asText(), r.partition(), r.offset(), r.value()));
    }
  }

  /** An input record. */
  public void event(ConsumerRecord<byte[], byte[]> r) {
    classifier.accept(r);
  }

  /**
   * Recomputes and compares key by key.
   *
   * @param sourcePartitions the input topic's partition count
   * @param corrections receives (result key, corrected result) for every differing result, or null
   */
  public void finish(
      int sourcePartitions,
      BiConsumer<String, byte[]> corrections,
      Consumer<ReconcileProgress> progress) {
    KeyReconciler keys =
        new KeyReconciler(job, sourcePartitions, fromMs, toMs, sigmas, tally, corrections);
    merge(sorter, keys, job, progress);
  }

  /** What was held and spilled. */
  public ReconcileReport.Memory memory() {
    return new ReconcileReport.Memory(
        budgetBytes,
        sorter.records(),
        sorter.spilledRecords(),
        sorter.runsWritten(),
        sorter.spilledBytes(),
        sorter.peakBufferedBytes(),
        8 * side.size(),
        tally.peakKeyResults,
        tally.peakKeyEvents);
  }

  @Override
  public void close() {
    sorter.close();
  }

  private static void indexSide(
      ConsumerRecord<byte[], byte[]> r,
      boolean late,
      String eventsTopic,
      SideIndex side,
      Tally tally) {
    tally.sideRecords++;
    Header topic = r.headers().lastHeader("skewer.source.topic");
    Header partition = r.headers().lastHeader("skewer.source.partition");
    Header offset = r.headers().lastHeader("skewer.source.offset");
    if (topic == null || partition == null || offset == null) {
      tally.sideRecordsWithoutSource++;
      return;
    }
    if (!eventsTopic.equals(new String(topic.value(), StandardCharsets.UTF_8))) {
      return; // another job's input
    }
    int p;
    long o;
    try {
      p = Integer.parseInt(new String(partition.value(), StandardCharsets.UTF_8));
      o = Long.parseLong(new String(offset.value(), StandardCharsets.UTF_8));
    } catch (NumberFormatException e) {
      tally.sideRecordsWithoutSource++;
      return;
    }
    int code;
    if (late) {
      code = SideIndex.LATE;
    } else {
      Header reason = r.headers().lastHeader(DlqReason.HEADER);
      code =
          SideIndex.dlqCode(
              reason == null
                  ? null
                  : DlqReason.ofCode(new String(reason.value(), StandardCharsets.UTF_8)));
    }
    side.add(p, o, code);
  }

  private static void merge(
      ExternalSorter sorter,
      KeyReconciler keys,
      JobSpec job,
      Consumer<ReconcileProgress> progress) {
    long total = sorter.records();
    long startNs = System.nanoTime();
    long lastNs = startNs;
    long lastDone = 0;
    long done = 0;
    Iterator<byte[]> it = sorter.sorted();
    SortRecord.Reader reader = new SortRecord.Reader();
    SortRecord.Event event =
        new SortRecord.Event(job.input().numericFields().size(), job.input().dimensions().size());
    boolean started = false;
    while (it.hasNext()) {
      byte[] record = it.next();
      boolean sameKey = started && reader.sameKey(record);
      reader.read(record);
      if (!sameKey) {
        if (started) {
          keys.end();
        }
        keys.begin(reader.key());
        started = true;
      }
      switch (reader.type()) {
        case SortRecord.RESULT ->
            keys.result(reader.partition(), reader.offset(), reader.resultValue());
        case SortRecord.SIDE -> keys.side(reader.eventTimeMs());
        case SortRecord.EVENT -> {
          long t = reader.eventTimeMs();
          reader.event(event);
          keys.event(reader.partition(), reader.offset(), t, event);
        }
        default -> throw new IllegalStateException("unknown sort record type " + reader.type());
      }
      done++;
      long now = System.nanoTime();
      if (progress != null && now - lastNs >= 1_000_000_000L) {
        progress.accept(
            new ReconcileProgress(
                ReconcileProgress.Phase.MERGE,
                null,
                List.of(),
                done,
                total,
                (done - lastDone) * 1e9 / (now - lastNs),
                Duration.ofNanos(now - startNs)));
        lastNs = now;
        lastDone = done;
      }
    }
    if (started) {
      keys.end();
    }
    if (progress != null) {
      long now = System.nanoTime();
      progress.accept(
          new ReconcileProgress(
              ReconcileProgress.Phase.MERGE,
              null,
              List.of(),
              done,
              total,
              (done - lastDone) * 1e9 / Math.max(1, now - lastNs),
              Duration.ofNanos(now - startNs)));
    }
  }

  /** Decodes and routes input records: accounting, then the sorter. */
  private static final class Classifier {
    private final JobSpec job;
    private final SideIndex side;
    private final Tally tally;
    private final ExternalSorter sorter;
    private final SortRecord.Writer writer;
    private final long fromMs;
    private final long toMs;
    private final long reachMs;
    private final EventDecoder decoder;
    private final DecodedEvent event;
    private final long delayMs;
    // per source partition: the largest event time the node folded in so far (its watermark +
    // delay)
    private final Map<Integer, Long> maxEventTimeMs = new HashMap<>();

    Classifier(
        JobSpec job,
        SideIndex side,
        Tally tally,
        ExternalSorter sorter,
        SortRecord.Writer writer,
        long fromMs,
        long toMs,
        long reachMs) {
      this.job = job;
      this.side = side;
      this.tally = tally;
      this.sorter = sorter;
      this.writer = writer;
      this.fromMs = fromMs;
      this.toMs = toMs;
      this.reachMs = reachMs;
      this.decoder = new EventDecoder(job);
      this.event = DecodedEvent.forJob(job);
      this.delayMs = job.watermark().delay().toMillis();
    }

    void accept(ConsumerRecord<byte[], byte[]> r) {
      tally.recordsRead++;
      int p = r.partition();
      long o = r.offset();
      int[] codes = side.lookup(p, o);
      DlqReason reason = decoder.decode(r.value(), event);
      boolean decodable = reason == null;
      long t = decodable ? event.eventTimeMs() : r.timestamp();
      boolean inRange = t >= fromMs && t < toMs;
      boolean late = false;
      int dlqCode = -1;
      for (int c : codes) {
        if (c == SideIndex.LATE) {
          late = true;
        } else {
          dlqCode = c;
        }
      }
      boolean dlq = dlqCode >= 0;
      if (inRange) {
        tally.eventsInRange++;
        if (late && dlq) {
          tally.eventsDoubleAccounted++;
          tally.issue(
              AccountingIssue.Kind.LATE_AND_DLQ, p, o, "both the late topic and the DLQ hold it");
        } else if (codes.length > 1) {
          tally.issue(
              AccountingIssue.Kind.DUPLICATE_SIDE_OUTPUT,
              p,
              o,
              (late ? "the late topic" : "the DLQ") + " holds it " + codes.length + " times");
        }
        if (late) {
          tally.eventsLate++;
        } else if (dlq) {
          tally.eventsDlq++;
        } else if (decodable) {
          tally.eventsAggregated++;
        }
      }
      if (!decodable) {
        if (inRange) {
          if (dlq) {
            DlqReason recorded = SideIndex.reason(dlqCode);
            if (recorded != reason) {
              tally.issue(
                  AccountingIssue.Kind.DLQ_REASON_MISMATCH,
                  p,
                  o,
                  "the DLQ says "
                      + (recorded == null ? "no known reason" : recorded.code())
                      + ", the decoder says "
                      + reason.code());
            }
          } else if (late) {
            tally.issue(
                AccountingIssue.Kind.UNDECODABLE_IN_LATE,
                p,
                o,
                "the decoder refuses it (" + reason.code() + ") but the late topic holds it");
          } else {
            tally.eventsUnaccounted++;
            tally.issue(
                AccountingIssue.Kind.NOT_IN_DLQ,
                p,
                o,
                "the decoder refuses it (" + reason.code() + ") and no DLQ record names it");
          }
        }
        return;
      }
      boolean needed = t >= fromMs - reachMs && t < toMs + reachMs;
      if (late || dlq) {
        if (inRange && dlq && !late) {
          DlqReason recorded = SideIndex.reason(dlqCode);
          if (recorded != null
              && recorded != DlqReason.FUTURE_TIME
              && recorded != DlqReason.INVALID_VALUE) {
            tally.issue(
                AccountingIssue.Kind.DLQ_REASON_MISMATCH,
                p,
                o,
                "the DLQ says " + recorded.code() + ", the decoder accepts it");
          }
        }
        if (needed) {
          sorter.add(
              writer.side(event.key(), p, o, t, late ? SortRecord.SIDE_LATE : SortRecord.SIDE_DLQ));
        }
        return;
      }
      // the partition's watermark before this event, as the node had it (from the records read:
      // the read margin covers every earlier event that can make a window of the range late)
      Long max = maxEventTimeMs.get(p);
      long watermarkMs = max == null ? Long.MIN_VALUE : max - delayMs;
      if (max == null || t > max) {
        maxEventTimeMs.put(p, t);
      }
      if (needed) {
        sorter.add(
            writer.event(
                event.key(),
                p,
                o,
                t,
                watermarkMs,
                event.numeric(),
                event.distinctItem(),
                event.frequencyItem(),
                event.quantileValue(),
                event.dimensions()));
      }
    }
  }
}

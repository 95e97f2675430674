package dev.skewer.reconcile.internal;

import dev.skewer.reconcile.ReconcileProgress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads offset ranges of a topic's partitions with an assigned consumer (no group, no commits),
 * reporting progress about once a second. Blocking.
 */
public final class TopicScan {

  private static final long REPORT_INTERVAL_NS = 1_000_000_000L;

  private TopicScan() {}

  /** The offsets {@code [start, end)} of one partition. */
  public record Range(int partition, long start, long end) {
    public long size() {
      return Math.max(0, end - start);
    }
  }

  /** The partition count of {@code topic}. */
  public static int partitions(KafkaConsumer<byte[], byte[]> consumer, String topic, Duration t) {
    List<PartitionInfo> infos = consumer.partitionsFor(topic, t);
    if (infos == null || infos.isEmpty()) {
      throw new IllegalStateException("topic '" + topic + "' does not exist");
    }
    return infos.size();
  }

  /**
   * Plans the ranges of every partition of {@code topic}: from the first record with a timestamp at
   * or after {@code fromMs} ({@code Long.MIN_VALUE}: the beginning) to the first record with a
   * timestamp at or after {@code toMs} ({@code Long.MAX_VALUE}, or no such record: the end offset
   * now).
   */
  public static List<Range> plan(
      KafkaConsumer<byte[], byte[]> consumer,
      String topic,
      long fromMs,
      long toMs,
      Duration timeout) {
    int n = partitions(consumer, topic, timeout);
    List<TopicPartition> tps = new ArrayList<>();
    for (int p = 0; p < n; p++) {
      tps.add(new TopicPartition(topic, p));
    }
    Map<TopicPartition, Long> begin = consumer.beginningOffsets(tps, timeout);
    Map<TopicPartition, Long> end = consumer.endOffsets(tps, timeout);
    Map<TopicPartition, OffsetAndTimestamp> starts = Map.of();
    Map<TopicPartition, OffsetAndTimestamp> stops = Map.of();
    if (fromMs != Long.MIN_VALUE) {
      starts = consumer.offsetsForTimes(times(tps, Math.max(0, fromMs)), timeout);
    }
    if (toMs != Long.MAX_VALUE) {
      stops = consumer.offsetsForTimes(times(tps, Math.max(0, toMs)), timeout);
    }
    List<Range> ranges = new ArrayList<>();
    for (TopicPartition tp : tps) {
      long e = end.get(tp);
      long s = begin.get(tp);
      if (fromMs != Long.MIN_VALUE) {
        OffsetAndTimestamp st = starts.get(tp);
        s = st == null ? e : Math.max(s, st.offset());
      }
      if (toMs != Long.MAX_VALUE) {
        OffsetAndTimestamp stop = stops.get(tp);
        if (stop != null) {
          e = Math.min(e, stop.offset());
        }
      }
      ranges.add(new Range(tp.partition(), s, Math.max(s, e)));
    }
    return ranges;
  }

  private static Map<TopicPartition, Long> times(List<TopicPartition> tps, long ms) {
    Map<TopicPartition, Long> m = new HashMap<>();
    tps.forEach(tp -> m.put(tp, ms));
    return m;
  }

  /**
   * Reads every record of the ranges, partition by partition in offset order (partitions
   * interleave), and hands it to {@code handler}.
   *
   * @param stall fail when no record arrives for this long while records remain
   * @throws IllegalStateException when the read stalls
   */
  public static void read(
      KafkaConsumer<byte[], byte[]> consumer,
      String topic,
      List<Range> ranges,
      ReconcileProgress.Phase phase,
      Consumer<ConsumerRecord<byte[], byte[]>> handler,
      Consumer<ReconcileProgress> progress,
      Duration stall) {
    Map<Integer, Range> byPartition = new HashMap<>();
    Map<Integer, Long> read = new HashMap<>();
    List<TopicPartition> toRead = new ArrayList<>();
    long total = 0;
    for (Range r : ranges) {
      byPartition.put(r.partition(), r);
      read.put(r.partition(), 0L);
      total += r.size();
      if (r.size() > 0) {
        toRead.add(new TopicPartition(topic, r.partition()));
      }
    }
    long startNs = System.nanoTime();
    long lastReportNs = startNs;
    long lastReportDone = 0;
    long done = 0;
    consumer.assign(toRead);
    for (TopicPartition tp : toRead) {
      consumer.seek(tp, byPartition.get(tp.partition()).start());
    }
    List<TopicPartition> open = new ArrayList<>(toRead);
    long lastRecordNs = System.nanoTime();
    while (!open.isEmpty()) {
      ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
      for (ConsumerRecord<byte[], byte[]> r : records) {
        Range range = byPartition.get(r.partition());
        if (r.offset() < range.start() || r.offset() >= range.end()) {
          continue;
        }
        handler.accept(r);
        read.merge(r.partition(), 1L, Long::sum);
        done++;
      }
      if (!records.isEmpty()) {
        lastRecordNs = System.nanoTime();
      }
      List<TopicPartition> finished = new ArrayList<>();
      for (TopicPartition tp : open) {
        if (consumer.position(tp) >= byPartition.get(tp.partition()).end()) {
          finished.add(tp);
        }
      }
      if (!finished.isEmpty()) {
        open.removeAll(finished);
        consumer.pause(finished);
      }
      long now = System.nanoTime();
      if (!open.isEmpty() && now - lastRecordNs > stall.toNanos()) {
        throw new IllegalStateException(
            "reading topic '"
                + topic
                + "' stalled: no record for "
                + stall.toSeconds()
                + " s with "
                + (total - done)
                + " records left; is the broker reachable?");
      }
      if (progress != null && (now - lastReportNs >= REPORT_INTERVAL_NS || open.isEmpty())) {
        double rate = (done - lastReportDone) * 1e9 / Math.max(1, now - lastReportNs);
        List<ReconcileProgress.PartitionProgress> parts = new ArrayList<>();
        for (Range r : ranges) {
          parts.add(
              new ReconcileProgress.PartitionProgress(
                  r.partition(), read.get(r.partition()), r.size()));
        }
        progress.accept(
            new ReconcileProgress(
                phase, topic, parts, done, total, rate, Duration.ofNanos(now - startNs)));
        lastReportNs = now;
        lastReportDone = done;
      }
    }
    consumer.assign(List.of());
  }
}

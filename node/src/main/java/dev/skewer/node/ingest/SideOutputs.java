package dev.skewer.node.ingest;

import dev.skewer.core.event.DlqReason;
import dev.skewer.core.job.TopicsSpec;
import dev.skewer.stage.RateLimitedLog;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the records of the two side outputs — the DLQ (bad events, the reason in {@value
 * DlqReason#HEADER}) and the late topic (events behind the watermark by more than the allowed
 * lateness, the watermark in {@value #WATERMARK_HEADER}) — with the source headers every side
 * record carries ({@value #SOURCE_TOPIC_HEADER}, {@value #SOURCE_PARTITION_HEADER}, {@value
 * #SOURCE_OFFSET_HEADER}); counts them and logs them at WARN, rate-limited. A record larger than
 * its topic or the producer accepts is cut to fit ({@link SideRecordFit}, limits set by {@link
 * #limits}), so that routing can never fail for size. One instance per node, used on its event
 * loop.
 */
final class SideOutputs {

  private static final Logger LOG = LoggerFactory.getLogger(SideOutputs.class);
  static final String SOURCE_TOPIC_HEADER = "skewer.source.topic";
  static final String SOURCE_PARTITION_HEADER = "skewer.source.partition";
  static final String SOURCE_OFFSET_HEADER = "skewer.source.offset";
  static final String WATERMARK_HEADER = "skewer.watermark";
  private static final long LOG_INTERVAL_MS = 10_000;

  private final TopicsSpec topics;
  private final Counter late;
  private final Counter skipped;
  private final Map<DlqReason, Counter> dlq = new EnumMap<>(DlqReason.class);
  private final RateLimitedLog dlqLog = new RateLimitedLog(LOG, LOG_INTERVAL_MS);
  private final RateLimitedLog lateLog = new RateLimitedLog(LOG, LOG_INTERVAL_MS);
  private final RateLimitedLog truncatedLog = new RateLimitedLog(LOG, LOG_INTERVAL_MS);
  private final Counter truncated;
  private volatile int dlqLimitBytes = DEFAULT_LIMIT_BYTES;
  private volatile int lateLimitBytes = DEFAULT_LIMIT_BYTES;

  /** The limit until the topics have been described: Kafka's defaults (1 MiB requests). */
  static final int DEFAULT_LIMIT_BYTES = 1_048_576;

  SideOutputs(TopicsSpec topics, MeterRegistry registry, String nodeId) {
    this.topics = topics;
    this.late = Counter.builder(NodeMetrics.EVENTS_LATE).tag("node", nodeId).register(registry);
    this.skipped =
        Counter.builder(NodeMetrics.SIDE_OUTPUTS_SKIPPED).tag("node", nodeId).register(registry);
    this.truncated =
        Counter.builder(NodeMetrics.SIDE_OUTPUTS_TRUNCATED).tag("node", nodeId).register(registry);
    for (DlqReason reason : DlqReason.values()) {
      dlq.put(
          reason,
          Counter.builder(NodeMetrics.EVENTS_DLQ)
              .tag("node", nodeId)
              .tag("reason", reason.code())
              .register(registry));
    }
  }

  /** The DLQ record of a bad event. */
  ProducerRecord<byte[], byte[]> dlq(
      ConsumerRecord<byte[], byte[]> r, DlqReason reason, String detail, long nowMs) {
    dlq.get(reason).increment();
    dlqLog.warn(
        nowMs,
        "event to DLQ reason=[{}] topic=[{}] partition=[{}] offset=[{}]{}",
        reason.code(),
        r.topic(),
        r.partition(),
        r.offset(),
        detail == null ? "" : ": " + detail);
    RecordHeaders headers = sourceHeaders(r);
    headers.add(DlqReason.HEADER, bytes(reason.code()));
    return fit(new ProducerRecord<>(topics.dlq(), null, r.key(), r.value(), headers), r, nowMs);
  }

  /** The late-topic record of an event too late for every window it belongs to. */
  ProducerRecord<byte[], byte[]> late(
      ConsumerRecord<byte[], byte[]> r, long eventTimeMs, long watermarkMs, long nowMs) {
    late.increment();
    lateLog.warn(
        nowMs,
        "late event to the late topic topic=[{}] partition=[{}] offset=[{}] eventTimeMs=[{}]"
            + " watermarkMs=[{}]",
        r.topic(),
        r.partition(),
        r.offset(),
        eventTimeMs,
        watermarkMs);
    RecordHeaders headers = sourceHeaders(r);
    headers.add(WATERMARK_HEADER, bytes(Long.toString(watermarkMs)));
    return fit(new ProducerRecord<>(topics.late(), null, r.key(), r.value(), headers), r, nowMs);
  }

  /**
   * Sets the largest record each side topic takes: the smaller of the topic's {@code
   * max.message.bytes} and the producer's {@code max.request.size}. Thread-safe.
   */
  void limits(int dlqBytes, int lateBytes) {
    dlqLimitBytes = dlqBytes;
    lateLimitBytes = lateBytes;
  }

  private ProducerRecord<byte[], byte[]> fit(
      ProducerRecord<byte[], byte[]> record, ConsumerRecord<byte[], byte[]> r, long nowMs) {
    int limit = record.topic().equals(topics.dlq()) ? dlqLimitBytes : lateLimitBytes;
    ProducerRecord<byte[], byte[]> fitted = SideRecordFit.fit(record, limit);
    if (fitted != record) {
      truncated.increment();
      truncatedLog.warn(
          nowMs,
          "side record cut to fit topic=[{}] ({} bytes at most): source topic=[{}] partition=[{}]"
              + " offset=[{}] value of {} bytes",
          record.topic(),
          limit,
          r.topic(),
          r.partition(),
          r.offset(),
          r.value() == null ? 0 : r.value().length);
    }
    return fitted;
  }

  /** Counts a side record not written again because the previous owner already wrote it. */
  void skippedAlreadyRouted() {
    skipped.increment();
  }

  private static RecordHeaders sourceHeaders(ConsumerRecord<byte[], byte[]> r) {
    RecordHeaders headers = new RecordHeaders();
    headers.add(SOURCE_TOPIC_HEADER, bytes(r.topic()));
    headers.add(SOURCE_PARTITION_HEADER, bytes(Integer.toString(r.partition())));
    headers.add(SOURCE_OFFSET_HEADER, bytes(Long.toString(r.offset())));
    return headers;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}

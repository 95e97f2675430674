package dev.skewer.reconcile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.reconcile.internal.TopicScan;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads an upsert results topic the way a table consumer sees it: the last record written per
 * result key ({@code <key>@<startMs>}), filtered by key and by an instant inside the result's
 * interval. Only matching result keys are held in memory: a record that no longer matches removes
 * its key. Blocking.
 */
public final class ResultsReader {

  private static final ObjectMapper JSON = new ObjectMapper();

  private ResultsReader() {}

  /**
   * The latest record of one result key.
   *
   * @param resultKey the record key
   * @param key the key (the envelope's key field)
   * @param startMs the window or session start
   * @param endMs the window end, or the session's last event + 1 (exclusive)
   * @param eventCount the result's {@code event_count}
   * @param revision the result's revision
   * @param supersededBy the result key that absorbed this session, or null
   * @param partition the results-topic partition
   * @param offset the record's offset
   * @param json the record value
   */
  public record Result(
      String resultKey,
      String key,
      long startMs,
      long endMs,
      long eventCount,
      int revision,
      String supersededBy,
      int partition,
      long offset,
      String json) {}

  /**
   * What to read.
   *
   * @param topic the results topic (or a corrections topic)
   * @param keyField the envelope field holding the key
   * @param key only this key, or null for every key
   * @param atMs only results whose interval contains this instant, or null
   * @param includeSuperseded also sessions merged into another one
   */
  public record Query(
      String topic, String keyField, String key, Long atMs, boolean includeSuperseded) {}

  /**
   * Reads the whole topic and returns the matching latest results, ordered by start, then key.
   *
   * @param progress about once a second while reading (may be null)
   */
  public static List<Result> read(
      KafkaSettings kafka, Query query, Consumer<ReconcileProgress> progress, Duration stall) {
    Map<String, Object> config = kafka.consumerConfig(null);
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    config.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    config.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "skewer-results");
    Map<String, Result> latest = new HashMap<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicScan.Range> ranges =
          TopicScan.plan(consumer, query.topic(), Long.MIN_VALUE, Long.MAX_VALUE, stall);
      TopicScan.read(
          consumer,
          query.topic(),
          ranges,
          ReconcileProgress.Phase.RESULTS,
          r -> {
            if (r.key() == null) {
              return;
            }
            String resultKey = new String(r.key(), StandardCharsets.UTF_8);
            if (query.key() != null && !resultKey.startsWith(query.key() + "@")) {
              return; // not this key (cheap test before parsing)
            }
            Result result = r.value() == null ? null : parse(resultKey, r, query.keyField());
            if (result != null && matches(result, query)) {
              latest.put(resultKey, result);
            } else {
              latest.remove(resultKey); // a later record that no longer matches, or a tombstone
            }
          },
          progress,
          stall);
    }
    List<Result> out = new ArrayList<>(latest.values());
    out.sort(Comparator.comparingLong(Result::startMs).thenComparing(Result::key));
    return out;
  }

  private static boolean matches(Result r, Query q) {
    if (q.key() != null && !q.key().equals(r.key())) {
      return false;
    }
    if (q.atMs() != null && (r.startMs() > q.atMs() || r.endMs() <= q.atMs())) {
      return false;
    }
    return q.includeSuperseded() || r.supersededBy() == null;
  }

  private static Result parse(String resultKey, ConsumerRecord<byte[], byte[]> r, String keyField) {
    JsonNode root;
    try {
      root = JSON.readTree(r.value());
    } catch (IOException e) {
      return null;
    }
    JsonNode v = root.path("value");
    boolean session = v.has("session_start_ms");
    long start = v.path(session ? "session_start_ms" : "window_start_ms").asLong(Long.MIN_VALUE);
    long end = v.path(session ? "session_end_ms" : "window_end_ms").asLong(Long.MIN_VALUE);
    if (start == Long.MIN_VALUE || end == Long.MIN_VALUE) {
      return null;
    }
    return new Result(
        resultKey,
        root.path(keyField).asText(),
        start,
        session ? end + 1 : end,
        v.path("event_count").asLong(),
        v.path("revision").asInt(-1),
        v.has("superseded_by") ? v.path("superseded_by").asText() : null,
        r.partition(),
        r.offset(),
        new String(r.value(), StandardCharsets.UTF_8));
  }
}

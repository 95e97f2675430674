package dev.skewer.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.skewer.coordinator.stream.ModelMergeTasks;
import dev.skewer.core.event.DlqReason;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.header.Header;

/**
 * What a history produced: the results topic (each result key's records in the order written), the
 * late topic and the DLQ (by source partition and offset), and the frontier values handed over.
 */
record Observed(
    Map<String, List<Result>> results,
    List<Side> late,
    List<Side> dlq,
    List<Long> pushed,
    Map<Integer, Map<Long, Long>> adoptions,
    Map<String, Long> metrics,
    String diagnostics) {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** One record of the results topic. */
  record Result(String resultKey, String json, JsonNode value, int revision) {

    /**
     * The record's bytes without its revision number (which counts emissions) and its provenance
     * (which names the epochs and the watermark at emission): what it says.
     */
    String content() {
      return ModelMergeTasks.content(json);
    }

    boolean superseded() {
      return value.has("superseded_by");
    }

    long count() {
      return value.path("event_count").asLong();
    }
  }

  /** One late or DLQ record, by the source headers every side record carries. */
  record Side(int partition, long offset, String reason) {}

  static Observed of(
      MemoryBroker broker,
      List<Long> pushed,
      Map<Integer, Map<Long, Long>> adoptions,
      Map<String, Long> metrics,
      String diagnostics) {
    Map<String, List<Result>> results = new LinkedHashMap<>();
    for (MemoryBroker.Stored s : broker.all(ModelJob.RESULTS)) {
      String key = new String(s.key(), StandardCharsets.UTF_8);
      String json = new String(s.value(), StandardCharsets.UTF_8);
      JsonNode value;
      try {
        value = JSON.readTree(json).path("value");
      } catch (IOException e) {
        throw new UncheckedIOException("result " + key + " is not JSON: " + json, e);
      }
      results
          .computeIfAbsent(key, k -> new ArrayList<>())
          .add(new Result(key, json, value, value.path("revision").asInt(-1)));
    }
    return new Observed(
        results,
        side(broker, ModelJob.LATE),
        side(broker, ModelJob.DLQ),
        pushed,
        adoptions,
        metrics,
        diagnostics);
  }

  private static List<Side> side(MemoryBroker broker, String topic) {
    List<Side> out = new ArrayList<>();
    for (MemoryBroker.Stored s : broker.all(topic)) {
      out.add(
          new Side(
              Integer.parseInt(header(s, "skewer.source.partition")),
              Long.parseLong(header(s, "skewer.source.offset")),
              header(s, DlqReason.HEADER)));
    }
    return out;
  }

  private static String header(MemoryBroker.Stored s, String name) {
    Header h = s.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  /** The last record of each result key that is not superseded, by result key. */
  Map<String, Result> live() {
    Map<String, Result> out = new TreeMap<>();
    last()
        .forEach(
            (k, r) -> {
              if (!r.superseded()) {
                out.put(k, r);
              }
            });
    return out;
  }

  /** The last record of each result key (the upsert view). */
  Map<String, Result> last() {
    Map<String, Result> out = new LinkedHashMap<>();
    results.forEach((k, rs) -> out.put(k, rs.get(rs.size() - 1)));
    return out;
  }
}

package dev.skewer.launcher.verify;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Set;
import java.util.TreeSet;

/**
 * The fields of one result envelope that checks compare.
 *
 * @param distinctEstimate the first {@code distinct_*} estimate, or -1 if the job has none
 */
public record ResultRecord(
    String resultKey,
    String key,
    long windowStartMs,
    long windowEndMs,
    long count,
    double sum,
    double min,
    double max,
    long distinctEstimate,
    int revision,
    Set<Integer> sourcePartitions,
    int partitionsExpected) {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Parses a results-topic record; {@code keyField} and {@code sumField} name the JSON fields. */
  public static ResultRecord parse(
      String resultKey, byte[] value, String keyField, String numericField) {
    JsonNode root;
    try {
      root = JSON.readTree(value);
    } catch (IOException e) {
      throw new UncheckedIOException("result " + resultKey + " is not JSON", e);
    }
    JsonNode v = root.path("value");
    long distinct = -1;
    var fields = v.fields();
    while (fields.hasNext()) {
      var f = fields.next();
      if (f.getKey().startsWith("distinct_")) {
        JsonNode d = f.getValue();
        distinct = d.isObject() ? d.path("estimate").asLong() : d.asLong();
        break;
      }
    }
    return new ResultRecord(
        resultKey,
        root.path(keyField).asText(),
        v.path("window_start_ms").asLong(),
        v.path("window_end_ms").asLong(),
        v.path("event_count").asLong(),
        v.path("sum_" + numericField).asDouble(Double.NaN),
        v.path("min_" + numericField).asDouble(Double.NaN),
        v.path("max_" + numericField).asDouble(Double.NaN),
        distinct,
        v.path("revision").asInt(-1),
        sources(root.path("provenance")),
        root.path("provenance").path("partitions_expected").asInt(-1));
  }

  /** The provenance's source partitions, or null without provenance. */
  private static Set<Integer> sources(JsonNode provenance) {
    if (!provenance.isObject()) {
      return null;
    }
    Set<Integer> out = new TreeSet<>();
    for (JsonNode s : provenance.path("sources")) {
      out.add(s.path("partition").asInt());
    }
    return out;
  }
}

package dev.skewer.coordinator.stream;

import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.core.result.ResultFormatter;
import dev.skewer.core.wire.PartialsPartition;
import dev.skewer.stage.LandedRecords;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The results a partials partition's previous owner wrote after its last checkpoint, so the new
 * owner's replay does not write them again: a replayed result identical (but for its revision) to
 * the last one written for its key is skipped, a different one continues the written revision
 * numbers. Results are compared without their revision and provenance (epochs and the watermark at
 * emission differ in a replay by nature). For sessions it also answers which sessions of a key were
 * written, live or superseded, within an interval ({@link #sessionsWithin}), so a replay that
 * merges sessions supersedes those the previous owner published. Not thread-safe: built on a
 * worker, then used on the event loop.
 */
final class WrittenResults {

  /** What was last written for a result key: its revision and its {@linkplain #content content}. */
  record Written(int revision, String content) {

    /** The {@code event_count} of the content (-1 if it has none). */
    long count() {
      return countOf(content);
    }

    /** Whether the content is a session merged into another one ({@code superseded_by}). */
    boolean superseded() {
      return content.contains(SUPERSEDED_BY);
    }

    /**
     * The {@code session_end_ms} of the content (the session's last event time), or {@code
     * Long.MIN_VALUE} if it has none.
     */
    long sessionEndMs() {
      return numberOf(content, SESSION_END);
    }
  }

  private static final String REVISION = "\"revision\":";
  private static final String COUNT = "\"event_count\":";
  private static final String SESSION_END = "\"session_end_ms\":";
  // a quote inside a string value is escaped, so only the field itself can match
  private static final String SUPERSEDED_BY = "\"superseded_by\":\"";
  private static final String PROVENANCE = ",\"" + ResultFormatter.PROVENANCE + "\":{";

  private final Map<String, Written> byKey;
  // built on first use (sessions only): key -> window start -> result key
  private Map<String, TreeMap<Long, String>> byStart;

  private WrittenResults(Map<String, Written> byKey) {
    this.byKey = byKey;
  }

  static WrittenResults none() {
    return new WrittenResults(new HashMap<>());
  }

  /** Scans the results topic from shortly before {@code sinceMs} for keys of partition q. */
  static WrittenResults scan(
      KafkaSettings kafka, String resultsTopic, int q, int partialsPartitions, long sinceMs) {
    Map<String, Written> written = new HashMap<>();
    LandedRecords.since(
        kafka,
        "skewer-results-scan",
        List.of(resultsTopic),
        sinceMs,
        r -> {
          if (r.key() == null || r.value() == null) {
            return;
          }
          String resultKey = new String(r.key(), StandardCharsets.UTF_8);
          int at = resultKey.lastIndexOf('@');
          if (at < 0) {
            return;
          }
          if (PartialsPartition.of(resultKey.substring(0, at), partialsPartitions) != q) {
            return;
          }
          String json = new String(r.value(), StandardCharsets.UTF_8);
          int revision = revisionOf(json);
          Written held = written.get(resultKey);
          if (held == null || revision >= held.revision()) {
            written.put(resultKey, new Written(revision, content(json)));
          }
        });
    return new WrittenResults(written);
  }

  boolean isEmpty() {
    return byKey.isEmpty();
  }

  Written get(String resultKey) {
    return byKey.get(resultKey);
  }

  void put(String resultKey, int revision, String content) {
    if (byKey.put(resultKey, new Written(revision, content)) == null && byStart != null) {
      index(resultKey);
    }
  }

  /**
   * What was last written for each result key {@code key@start} with {@code fromMs < start <=
   * toMs}, by start.
   */
  NavigableMap<Long, Written> sessionsWithin(String key, long fromMs, long toMs) {
    if (byStart == null) {
      byStart = new HashMap<>();
      byKey.keySet().forEach(this::index);
    }
    TreeMap<Long, Written> within = new TreeMap<>();
    TreeMap<Long, String> starts = byStart.get(key);
    if (starts != null && fromMs < toMs) {
      starts
          .subMap(fromMs, false, toMs, true)
          .forEach((start, resultKey) -> within.put(start, byKey.get(resultKey)));
    }
    return within;
  }

  private void index(String resultKey) {
    int at = resultKey.lastIndexOf('@');
    if (at < 0) {
      return;
    }
    long start;
    try {
      start = Long.parseLong(resultKey.substring(at + 1));
    } catch (NumberFormatException e) {
      return; // not a result key this job writes
    }
    byStart.computeIfAbsent(resultKey.substring(0, at), k -> new TreeMap<>()).put(start, resultKey);
  }

  static int revisionOf(String json) {
    int i = json.lastIndexOf(REVISION);
    if (i < 0) {
      return -1;
    }
    int j = i + REVISION.length();
    int k = j;
    while (k < json.length() && Character.isDigit(json.charAt(k))) {
      k++;
    }
    return k > j ? Integer.parseInt(json.substring(j, k)) : -1;
  }

  /** The {@code event_count} of a result envelope, or -1 if it has none. */
  static long countOf(String json) {
    int i = json.indexOf(COUNT);
    if (i < 0) {
      return -1;
    }
    int j = i + COUNT.length();
    int k = j;
    while (k < json.length() && Character.isDigit(json.charAt(k))) {
      k++;
    }
    return k > j ? Long.parseLong(json.substring(j, k)) : -1;
  }

  /** The integer after {@code field} (which ends with its colon), or {@code Long.MIN_VALUE}. */
  private static long numberOf(String json, String field) {
    int i = json.indexOf(field);
    if (i < 0) {
      return Long.MIN_VALUE;
    }
    int j = i + field.length();
    int k = j < json.length() && json.charAt(j) == '-' ? j + 1 : j;
    int digits = k;
    while (k < json.length() && Character.isDigit(json.charAt(k))) {
      k++;
    }
    return k > digits ? Long.parseLong(json.substring(j, k)) : Long.MIN_VALUE;
  }

  /** A result's JSON without its revision number and its provenance object: what it says. */
  static String content(String json) {
    return withoutProvenance(withoutRevisionNumber(json));
  }

  private static String withoutRevisionNumber(String json) {
    int i = json.lastIndexOf(REVISION);
    if (i < 0) {
      return json;
    }
    int j = i + REVISION.length();
    int k = j;
    while (k < json.length() && Character.isDigit(json.charAt(k))) {
      k++;
    }
    return json.substring(0, j) + json.substring(k);
  }

  /** Removes {@code ,"provenance":{...}} (numbers and arrays of objects only: no strings). */
  private static String withoutProvenance(String json) {
    int i = json.indexOf(PROVENANCE);
    if (i < 0) {
      return json;
    }
    int depth = 0;
    int k = i + PROVENANCE.length() - 1; // at its opening brace
    do {
      char c = json.charAt(k++);
      if (c == '{') {
        depth++;
      } else if (c == '}') {
        depth--;
      }
    } while (depth > 0 && k < json.length());
    return json.substring(0, i) + json.substring(k);
  }
}

package dev.skewer.coordinator.query;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.NumericField;
import dev.skewer.core.job.SessionWindow;
import java.io.IOException;
import java.util.List;

/**
 * Reads a results-topic record value (the envelope {@link dev.skewer.core.result.ResultFormatter}
 * writes) into a {@link StoredResult}, with the field names the job implies. Thread-safe.
 *
 * <p>One streaming pass over the bytes: the fields the view needs are read, everything else is
 * skipped unparsed, and the provenance object is kept as where the envelope has it (the view reads
 * every result the cluster writes, so it builds no tree and copies nothing out). When a field
 * appears twice the last one counts.
 */
public final class ResultParser {

  // doubles (the sums, the distinct estimate) read by the fast parser: the same value as
  // Double.parseDouble, for less work per result
  private static final JsonFactory FACTORY =
      JsonFactory.builder()
          .enable(StreamReadFeature.USE_FAST_DOUBLE_PARSER)
          .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
          .build();

  private final String keyField;
  private final boolean sessions;
  private final String[] sumNames;
  private final String distinctName;

  public ResultParser(JobSpec job) {
    this.keyField = job.output().keyField();
    this.sessions = job.window() instanceof SessionWindow;
    List<NumericField> fields = job.input().numericFields();
    this.sumNames = new String[fields.size()];
    for (int i = 0; i < sumNames.length; i++) {
      sumNames[i] = "sum_" + fields.get(i).name();
    }
    this.distinctName =
        job.input().distinctPointer() == null ? null : "distinct_" + job.input().distinctName();
  }

  /**
   * Parses one envelope.
   *
   * @throws IllegalArgumentException when it is not a result envelope of this job
   */
  public StoredResult parse(byte[] envelope) {
    if (envelope == null) {
      throw new IllegalArgumentException("no value (a tombstone)");
    }
    try (JsonParser p = FACTORY.createParser(envelope)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IllegalArgumentException("not a JSON object");
      }
      String key = null;
      Fields value = null;
      Span provenance = null;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken t = p.nextToken();
        if (name.equals(keyField)) {
          key = string(p, t, name);
        } else if (name.equals("value")) {
          value = t == JsonToken.VALUE_NULL ? null : readValue(p, t);
        } else if (name.equals("provenance")) {
          provenance = objectSpan(p, t);
        } else {
          p.skipChildren();
        }
      }
      if (p.nextToken() != null) {
        throw new IllegalArgumentException("content after the JSON object");
      }
      if (key == null || value == null) {
        throw new IllegalArgumentException("no '" + keyField + "' or 'value' field");
      }
      long start;
      long end;
      if (sessions) {
        start = required(value.sessionStart, "session_start_ms");
        end = required(value.sessionEnd, "session_end_ms") + 1;
      } else {
        start = required(value.windowStart, "window_start_ms");
        end = required(value.windowEnd, "window_end_ms");
      }
      long count = required(value.count, "event_count");
      int revision = (int) required(value.revision, "revision");
      double[] sums = new double[sumNames.length];
      for (int i = 0; i < sums.length; i++) {
        sums[i] = value.sums[i] == null ? Double.NaN : value.sums[i].doubleValue();
      }
      double distinct = value.distinct == null ? Double.NaN : value.distinct.doubleValue();
      Span where = provenance != null ? provenance : value.provenance;
      return new StoredResult(
          key,
          start,
          end,
          revision,
          count,
          sums,
          distinct,
          value.superseded,
          where == null ? StoredResult.NO_PROVENANCE : where.from,
          where == null ? StoredResult.NO_PROVENANCE : where.to,
          envelope);
    } catch (IOException e) {
      throw new IllegalArgumentException("not a JSON object: " + e.getMessage(), e);
    }
  }

  /** What the parser keeps of the {@code value} object. */
  private final class Fields {
    Number windowStart;
    Number windowEnd;
    Number sessionStart;
    Number sessionEnd;
    Number count;
    Number revision;
    final Number[] sums = new Number[sumNames.length];
    Number distinct;
    boolean superseded;
    Span provenance; // where envelopes before the top-level object kept it
  }

  private Fields readValue(JsonParser p, JsonToken t) throws IOException {
    if (t != JsonToken.START_OBJECT) {
      throw wrongType("value");
    }
    Fields f = new Fields();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken v = p.nextToken();
      switch (name) {
        case "window_start_ms" -> f.windowStart = number(p, v, name);
        case "window_end_ms" -> f.windowEnd = number(p, v, name);
        case "session_start_ms" -> f.sessionStart = number(p, v, name);
        case "session_end_ms" -> f.sessionEnd = number(p, v, name);
        case "event_count" -> f.count = number(p, v, name);
        case "revision" -> f.revision = number(p, v, name);
        case "superseded_by" -> {
          f.superseded = v != JsonToken.VALUE_NULL;
          p.skipChildren();
        }
        case "provenance" -> f.provenance = objectSpan(p, v);
        default -> {
          int sum = sumIndex(name);
          if (sum >= 0) {
            f.sums[sum] = number(p, v, name);
          } else if (name.equals(distinctName)) {
            f.distinct = v == JsonToken.VALUE_NULL ? null : estimate(p, v, name);
          } else {
            p.skipChildren();
          }
        }
      }
    }
    return f;
  }

  private int sumIndex(String name) {
    for (int i = 0; i < sumNames.length; i++) {
      if (sumNames[i].equals(name)) {
        return i;
      }
    }
    return -1;
  }

  /** The {@code estimate} of a distinct-count object, or null when it has none. */
  private static Number estimate(JsonParser p, JsonToken t, String field) throws IOException {
    if (t != JsonToken.START_OBJECT) {
      throw wrongType(field);
    }
    Number estimate = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken v = p.nextToken();
      if (name.equals("estimate")) {
        estimate = number(p, v, field + ".estimate");
      } else {
        p.skipChildren();
      }
    }
    return estimate;
  }

  /** A number, null for JSON null; anything else is the wrong type. */
  private static Number number(JsonParser p, JsonToken t, String field) throws IOException {
    if (t == JsonToken.VALUE_NULL) {
      return null;
    }
    if (t != JsonToken.VALUE_NUMBER_INT && t != JsonToken.VALUE_NUMBER_FLOAT) {
      throw wrongType(field);
    }
    return p.getNumberValue();
  }

  private static String string(JsonParser p, JsonToken t, String field) throws IOException {
    if (t == JsonToken.VALUE_NULL) {
      return null;
    }
    if (t != JsonToken.VALUE_STRING) {
      throw wrongType(field);
    }
    return p.getText();
  }

  /** Where an object lies in the envelope, {@code to} exclusive. */
  private record Span(int from, int to) {}

  /** Where an object is in the envelope; null for JSON null or anything but an object. */
  private static Span objectSpan(JsonParser p, JsonToken t) throws IOException {
    if (t != JsonToken.START_OBJECT) {
      p.skipChildren();
      return null;
    }
    int from = (int) p.currentTokenLocation().getByteOffset();
    p.skipChildren();
    return new Span(from, (int) p.currentLocation().getByteOffset());
  }

  private static IllegalArgumentException wrongType(String field) {
    return new IllegalArgumentException("a field has the wrong type: '" + field + "'");
  }

  private static long required(Number n, String field) {
    if (n == null) {
      throw new IllegalArgumentException("no '" + field + "' in value");
    }
    return n.longValue();
  }
}

package dev.skewer.coordinator.query;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.NumericField;
import dev.skewer.core.job.SessionWindow;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * The reference for {@link ResultParser}: the envelope read into a whole JSON tree (Vert.x's
 * JsonObject) and the fields looked up in it, the way the view read results before it streamed.
 */
final class TreeResultParser {

  private final String keyField;
  private final boolean sessions;
  private final String[] sumNames;
  private final String distinctName;

  TreeResultParser(JobSpec job) {
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
    JsonObject root;
    try {
      root = new JsonObject(Buffer.buffer(envelope));
    } catch (DecodeException | ClassCastException e) {
      throw new IllegalArgumentException("not a JSON object: " + e.getMessage(), e);
    }
    try {
      String key = root.getString(keyField);
      JsonObject value = root.getJsonObject("value");
      if (key == null || value == null) {
        throw new IllegalArgumentException("no '" + keyField + "' or 'value' field");
      }
      long start;
      long end;
      if (sessions) {
        start = required(value, "session_start_ms");
        end = required(value, "session_end_ms") + 1;
      } else {
        start = required(value, "window_start_ms");
        end = required(value, "window_end_ms");
      }
      long count = required(value, "event_count");
      int revision = (int) required(value, "revision");
      double[] sums = new double[sumNames.length];
      for (int i = 0; i < sums.length; i++) {
        Number n = value.getNumber(sumNames[i]);
        sums[i] = n == null ? Double.NaN : n.doubleValue();
      }
      double distinct = Double.NaN;
      if (distinctName != null) {
        JsonObject d = value.getJsonObject(distinctName);
        if (d != null && d.getNumber("estimate") != null) {
          distinct = d.getNumber("estimate").doubleValue();
        }
      }
      boolean superseded = value.getValue("superseded_by") != null;
      Object top = root.getValue("provenance");
      Object provenance = top != null ? top : value.getValue("provenance");
      int from = StoredResult.NO_PROVENANCE;
      int to = StoredResult.NO_PROVENANCE;
      if (provenance instanceof JsonObject p) {
        // where the object, as Vert.x writes it, is in the envelope (the envelopes tested hold one
        // provenance object: the top-level one follows the value object, a legacy one is inside it)
        byte[] field = ("\"provenance\":" + p.encode()).getBytes(StandardCharsets.UTF_8);
        int at = top != null ? lastIndexOf(envelope, field) : indexOf(envelope, field);
        if (at < 0) {
          throw new IllegalStateException(
              "the provenance object is not in the envelope as written");
        }
        from = at + "\"provenance\":".length();
        to = at + field.length;
      }
      return new StoredResult(
          key, start, end, revision, count, sums, distinct, superseded, from, to, envelope);
    } catch (ClassCastException e) {
      throw new IllegalArgumentException("a field has the wrong type: " + e.getMessage(), e);
    }
  }

  private static int indexOf(byte[] in, byte[] part) {
    for (int i = 0; i + part.length <= in.length; i++) {
      if (Arrays.equals(in, i, i + part.length, part, 0, part.length)) {
        return i;
      }
    }
    return -1;
  }

  private static int lastIndexOf(byte[] in, byte[] part) {
    for (int i = in.length - part.length; i >= 0; i--) {
      if (Arrays.equals(in, i, i + part.length, part, 0, part.length)) {
        return i;
      }
    }
    return -1;
  }

  private static long required(JsonObject value, String field) {
    Number n = value.getNumber(field);
    if (n == null) {
      throw new IllegalArgumentException("no '" + field + "' in value");
    }
    return n.longValue();
  }
}

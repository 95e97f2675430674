package dev.skewer.peers.flink;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * One final W1 result of the Flink job, written in Skewer's result envelope (the fields the bench's
 * exact check reads: key, window bounds, count, sum, min, max, revision 0), so both engines' output
 * is checked by the same code.
 */
public class W1Result {
  public String key;
  public long windowStartMs;
  public long windowEndMs;
  public long count;
  public double sum;
  public double min;
  public double max;
  public long distinctUsers;
  public double p50;
  public double p99;

  public W1Result() {}

  private static final JsonFactory JSON = new JsonFactory();
  private static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC);

  /** The record key: {@code <key>@<windowStart>}, as Skewer's results topic has it. */
  byte[] resultKey() {
    return (key + "@" + windowStartMs).getBytes(StandardCharsets.UTF_8);
  }

  /** The envelope, UTF-8 JSON. */
  byte[] envelope() {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeStringField("event", "w1");
      g.writeStringField("key", key);
      g.writeStringField("timestamp", TIMESTAMP.format(Instant.ofEpochMilli(windowStartMs)));
      g.writeObjectFieldStart("value");
      g.writeNumberField("window_start_ms", windowStartMs);
      g.writeNumberField("window_end_ms", windowEndMs);
      g.writeNumberField("event_count", count);
      g.writeNumberField("sum_value", sum);
      g.writeNumberField("min_value", min);
      g.writeNumberField("max_value", max);
      g.writeNumberField("distinct_user", distinctUsers);
      g.writeNumberField("p50_value", p50);
      g.writeNumberField("p99_value", p99);
      g.writeNumberField("revision", 0);
      g.writeEndObject();
      g.writeObjectFieldStart("user_attributes");
      g.writeEndObject();
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}

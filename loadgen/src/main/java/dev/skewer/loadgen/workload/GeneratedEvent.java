package dev.skewer.loadgen.workload;

import java.nio.charset.StandardCharsets;

/**
 * One generated event: the fields it was generated from and the exact record value and key sent to
 * Kafka.
 *
 * <p>For {@link EventKind#MALFORMED} events the fields are those the record would have carried; the
 * {@code json} is broken in one of the ways of {@link Malformation}. The byte array is shared, not
 * copied: do not modify it.
 *
 * @param key the aggregation key, e.g. {@code ad17}
 * @param user the user id, e.g. {@code u123} (the distinct-count item)
 * @param value the numeric value, rounded to 3 decimals (exactly what {@code json} carries)
 * @param eventTimeMs the event time in epoch ms (the {@code ts} field)
 * @param kind what the event was generated to be
 * @param json the Kafka record value
 * @param recordKey the Kafka record key (normally {@code key})
 * @param malformation how a MALFORMED event is broken, {@code null} for the other kinds
 */
public record GeneratedEvent(
    String key,
    String user,
    double value,
    long eventTimeMs,
    EventKind kind,
    byte[] json,
    String recordKey,
    Malformation malformation) {

  public GeneratedEvent {
    if (kind == null) {
      throw new IllegalArgumentException("kind must not be null");
    }
    if (json == null) {
      throw new IllegalArgumentException("json must not be null");
    }
    if ((kind == EventKind.MALFORMED) != (malformation != null)) {
      throw new IllegalArgumentException(
          "malformation must be set exactly for MALFORMED events: kind="
              + kind
              + " malformation="
              + malformation);
    }
  }

  /** A well-formed event of the given kind with its canonical JSON and record key = key. */
  public static GeneratedEvent of(
      String key, String user, double value, long eventTimeMs, EventKind kind) {
    if (kind == EventKind.MALFORMED) {
      throw new IllegalArgumentException("use Malformation to build MALFORMED events");
    }
    return new GeneratedEvent(
        key,
        user,
        value,
        eventTimeMs,
        kind,
        EventJson.encode(key, user, value, eventTimeMs),
        key,
        null);
  }

  /** Whether the record value is a valid event a node must aggregate or route as late. */
  public boolean wellFormed() {
    return kind == EventKind.NORMAL || kind == EventKind.LATE;
  }

  /** The record value as a string (for logs and tests). */
  public String jsonString() {
    return new String(json, StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    String text = jsonString();
    return "GeneratedEvent["
        + kind
        + (malformation == null ? "" : "/" + malformation)
        + " recordKey="
        + recordKey
        + " ts="
        + eventTimeMs
        + " json="
        + (text.length() > 120 ? text.substring(0, 120) + "...(" + text.length() + " chars)" : text)
        + "]";
  }
}

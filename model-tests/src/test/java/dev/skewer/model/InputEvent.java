package dev.skewer.model;

import java.nio.charset.StandardCharsets;

/**
 * One record a history appends to the events topic.
 *
 * @param index position in the history's input (0, 1, ...)
 * @param partition the events partition the producer sent it to (salting rule)
 * @param key the event's key as the user wrote it (what results must be keyed by)
 * @param recordKey the Kafka record key (the salted sub-key of a hot key)
 * @param timeMs event time (for a well-formed event)
 * @param value the numeric field
 * @param group the dimension value
 * @param user the distinct item
 * @param dlqReason the DLQ reason code this record must get, or null for a well-formed event
 * @param json the record value
 * @param recordTimestampMs the record's create time
 */
record InputEvent(
    int index,
    int partition,
    String key,
    String recordKey,
    long timeMs,
    double value,
    String group,
    String user,
    String dlqReason,
    byte[] json,
    long recordTimestampMs) {

  /** A well-formed event of a cold key, its record stamped at its event time. */
  static InputEvent of(int index, int partition, String key, long timeMs, double value) {
    String json =
        "{\"key\":\""
            + key
            + "\",\"ts\":"
            + timeMs
            + ",\"value\":"
            + (long) value
            + ",\"group\":\"g\",\"user\":\"u\"}";
    return new InputEvent(
        index,
        partition,
        key,
        key,
        timeMs,
        value,
        "g",
        "u",
        null,
        json.getBytes(StandardCharsets.UTF_8),
        timeMs);
  }

  /** A record that is not JSON (the DLQ's {@code not_json}). */
  static InputEvent notJson(int index, int partition, String key, long recordTimestampMs) {
    return new InputEvent(
        index,
        partition,
        key,
        key,
        0,
        0,
        null,
        null,
        "not_json",
        ("{\"key\": \"" + key + "\", oops").getBytes(StandardCharsets.UTF_8),
        recordTimestampMs);
  }

  boolean wellFormed() {
    return dlqReason == null;
  }

  @Override
  public String toString() {
    return "#"
        + index
        + " p"
        + partition
        + " key="
        + key
        + (recordKey.equals(key) ? "" : " (record key " + recordKey + ")")
        + (dlqReason == null ? " t=" + timeMs + " v=" + (long) value : " bad=" + dlqReason);
  }
}

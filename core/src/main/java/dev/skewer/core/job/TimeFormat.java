package dev.skewer.core.job;

/** How the event-time field is written. */
public enum TimeFormat {
  /** Epoch milliseconds: an integral JSON number, or a string of digits. */
  EPOCH_MS,
  /** An ISO-8601 instant string with zone: {@code 2023-11-14T22:13:20Z}, {@code ...+01:00}. */
  ISO_8601,
  /** Either of the above, decided per event by the JSON type. */
  AUTO
}

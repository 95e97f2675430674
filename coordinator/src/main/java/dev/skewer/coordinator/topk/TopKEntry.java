package dev.skewer.coordinator.topk;

import java.util.Objects;

/** One key and its exact event count in a window. */
public record TopKEntry(String key, long count) {
  public TopKEntry {
    Objects.requireNonNull(key, "key");
    if (count < 0) {
      throw new IllegalArgumentException("count must be >= 0, was " + count);
    }
  }
}

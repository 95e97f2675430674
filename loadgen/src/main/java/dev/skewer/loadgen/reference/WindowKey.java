package dev.skewer.loadgen.reference;

/** A (key, tumbling window) pair; the window is named by its start in epoch ms. */
public record WindowKey(String key, long windowStartMs) {
  public WindowKey {
    if (key == null) {
      throw new IllegalArgumentException("key must not be null");
    }
  }
}

package dev.skewer.node.hotkey;

/**
 * A key a node's detector believes is hot on its source partition.
 *
 * @param key the bare key (salt stripped)
 * @param eventsPerSecond a lower-bound estimate of the key's rate on this partition over the
 *     detector's window
 * @param share the key's estimated share of this partition's events over the same window
 */
public record HotKeyCandidate(String key, double eventsPerSecond, double share) {
  public HotKeyCandidate {
    if (key == null || key.isEmpty()) {
      throw new IllegalArgumentException("key must not be null or empty: '" + key + "'");
    }
    if (!(eventsPerSecond >= 0) || Double.isInfinite(eventsPerSecond)) {
      throw new IllegalArgumentException(
          "eventsPerSecond must be finite and >= 0 for key '" + key + "': " + eventsPerSecond);
    }
    if (!(share >= 0 && share <= 1)) {
      throw new IllegalArgumentException("share must be in [0, 1] for key '" + key + "': " + share);
    }
  }
}

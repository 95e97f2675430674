package dev.skewer.core.hotkey;

/**
 * One entry of the {@link HotKeyTable}: a bare key whose records are spread over {@code fanout}
 * salted sub-keys {@code key#0 .. key#(fanout-1)}.
 *
 * @param key the bare key (never salted), non-empty
 * @param fanout the number of sub-keys, {@code >= 2} (a key at fanout 1 is simply not in the table)
 * @param sinceMs epoch ms since which the key has been hot (kept across fanout changes)
 */
public record HotKey(String key, int fanout, long sinceMs) {

  /** Largest fanout any table holds; partitioners bound it further by the partition count. */
  public static final int MAX_FANOUT = 65_536;

  public HotKey {
    if (key == null || key.isEmpty()) {
      throw new IllegalArgumentException("key must not be null or empty: '" + key + "'");
    }
    if (fanout < 2 || fanout > MAX_FANOUT) {
      throw new IllegalArgumentException(
          "fanout must be in [2, " + MAX_FANOUT + "] for key '" + key + "': " + fanout);
    }
    if (sinceMs < 0) {
      throw new IllegalArgumentException("sinceMs must be >= 0 for key '" + key + "': " + sinceMs);
    }
  }
}

package dev.skewer.core.event;

/**
 * Hot-key salts: a hot key {@code ad42} is produced as {@code ad42#0 .. ad42#f-1} so that its
 * records spread over several partitions; nodes strip the salt before aggregating.
 */
public final class SaltedKey {
  private SaltedKey() {}

  /**
   * Removes a trailing {@code <separator><digits>}: {@code ad42#3} → {@code ad42}, {@code a#1#2} →
   * {@code a#1}. A key without such a suffix ({@code ad42#}, {@code ad#x}), or one that would
   * become empty ({@code #3}), is returned unchanged. Allocates only when it strips.
   */
  public static String strip(String rawKey, String separator) {
    int n = rawKey.length();
    int i = n;
    while (i > 0) {
      char c = rawKey.charAt(i - 1);
      if (c < '0' || c > '9') {
        break;
      }
      i--;
    }
    if (i == n) {
      return rawKey;
    }
    int sepStart = i - separator.length();
    if (sepStart <= 0 || !rawKey.startsWith(separator, sepStart)) {
      return rawKey;
    }
    return rawKey.substring(0, sepStart);
  }

  /** {@code key + separator + salt}; {@code salt} must be >= 0. */
  public static String salt(String key, int salt, String separator) {
    if (salt < 0) {
      throw new IllegalArgumentException("salt must be >= 0, was " + salt);
    }
    return key + separator + salt;
  }
}

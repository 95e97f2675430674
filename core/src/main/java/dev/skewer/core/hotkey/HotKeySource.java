package dev.skewer.core.hotkey;

/**
 * Where a producer reads the current {@link HotKeyTable}. {@link #current} is called on every send:
 * implementations return a reference they already hold (a volatile read), never block.
 */
@FunctionalInterface
public interface HotKeySource {

  /** The current table; never null. */
  HotKeyTable current();

  /** A source that always returns {@code table}. */
  static HotKeySource fixed(HotKeyTable table) {
    if (table == null) {
      throw new IllegalArgumentException("table must not be null");
    }
    return () -> table;
  }
}

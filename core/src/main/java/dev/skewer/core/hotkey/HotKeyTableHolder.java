package dev.skewer.core.hotkey;

/**
 * An in-process {@link HotKeySource} whose table is set by hand: for tests, benchmarks, the load
 * generator, or an application that learns the table some other way (e.g. from Hazelcast).
 * Thread-safe: {@link #set} publishes through a volatile reference.
 */
public final class HotKeyTableHolder implements HotKeySource {
  private volatile HotKeyTable table;

  public HotKeyTableHolder() {
    this(HotKeyTable.EMPTY);
  }

  public HotKeyTableHolder(HotKeyTable initial) {
    set(initial);
  }

  public void set(HotKeyTable table) {
    if (table == null) {
      throw new IllegalArgumentException("table must not be null");
    }
    this.table = table;
  }

  @Override
  public HotKeyTable current() {
    return table;
  }
}

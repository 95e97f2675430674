package dev.skewer.core.hotkey;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The hot-key table: which keys are salted, with what fanout, since when. Immutable and safe to
 * share between threads; a new table replaces the old one by reference.
 *
 * <p>Lookups allocate nothing: {@link #get(String)} by key, {@link #lookup(byte[], int, int)} by a
 * UTF-8 range of a (possibly salted) serialized record key, which is what a producer partitioner
 * holds.
 *
 * <p>Implementation note: besides a {@code HashMap} for string lookups, the table keeps an
 * open-addressing index (load factor at most 1/2, linear probing) of the keys' UTF-8 bytes hashed
 * with Kafka's murmur2, so the hash a partitioner computes for the bare key serves both the probe
 * and the bare key's default partition.
 */
public final class HotKeyTable {

  /** The table with no hot key. */
  public static final HotKeyTable EMPTY = new HotKeyTable(List.of());

  private final Map<String, HotKey> byKey;
  private final List<HotKey> entries;
  private final byte[][] slotBytes;
  private final HotKey[] slotEntries;
  private final int mask;

  private HotKeyTable(List<HotKey> sorted) {
    Map<String, HotKey> map = new HashMap<>(Math.max(4, sorted.size() * 2));
    for (HotKey h : sorted) {
      if (map.put(h.key(), h) != null) {
        throw new IllegalArgumentException("duplicate key in hot-key table: '" + h.key() + "'");
      }
    }
    this.byKey = map;
    this.entries = Collections.unmodifiableList(sorted);
    int slots = Integer.highestOneBit(Math.max(2, sorted.size()) * 4 - 1) << 1;
    this.slotBytes = new byte[slots][];
    this.slotEntries = new HotKey[slots];
    this.mask = slots - 1;
    for (HotKey h : sorted) {
      byte[] b = h.key().getBytes(StandardCharsets.UTF_8);
      int i = Murmur2.hash(b, 0, b.length) & mask;
      while (slotBytes[i] != null) {
        i = (i + 1) & mask;
      }
      slotBytes[i] = b;
      slotEntries[i] = h;
    }
  }

  /** A table of {@code entries} (distinct keys). */
  public static HotKeyTable of(Collection<HotKey> entries) {
    if (entries.isEmpty()) {
      return EMPTY;
    }
    List<HotKey> sorted = new ArrayList<>(entries);
    sorted.sort(Comparator.comparing(HotKey::key));
    return new HotKeyTable(sorted);
  }

  /** A table of {@code entries} (distinct keys). */
  public static HotKeyTable of(HotKey... entries) {
    return of(Arrays.asList(entries));
  }

  /** The entry of {@code key}, or {@code null} when the key is cold. */
  public HotKey get(String key) {
    return byKey.get(key);
  }

  /** The fanout of {@code key}: its entry's, or 1 when it is cold. */
  public int fanout(String key) {
    HotKey h = byKey.get(key);
    return h == null ? 1 : h.fanout();
  }

  /** The entry whose key's UTF-8 bytes equal {@code bytes[offset, offset+length)}, or null. */
  public HotKey lookup(byte[] bytes, int offset, int length) {
    return lookup(bytes, offset, length, Murmur2.hash(bytes, offset, length));
  }

  /** As {@link #lookup(byte[], int, int)} with the range's murmur2 hash already computed. */
  HotKey lookup(byte[] bytes, int offset, int length, int murmur2) {
    if (entries.isEmpty()) {
      return null;
    }
    int i = murmur2 & mask;
    byte[] candidate;
    while ((candidate = slotBytes[i]) != null) {
      if (candidate.length == length
          && Arrays.equals(candidate, 0, length, bytes, offset, offset + length)) {
        return slotEntries[i];
      }
      i = (i + 1) & mask;
    }
    return null;
  }

  /** The entries, sorted by key; unmodifiable. */
  public List<HotKey> entries() {
    return entries;
  }

  public int size() {
    return entries.size();
  }

  public boolean isEmpty() {
    return entries.isEmpty();
  }

  /** This table with {@code entry} added or replacing the key's entry. */
  public HotKeyTable with(HotKey entry) {
    Map<String, HotKey> copy = new HashMap<>(byKey);
    copy.put(entry.key(), entry);
    return of(copy.values());
  }

  /** This table without {@code key} (the same table if the key is cold). */
  public HotKeyTable without(String key) {
    if (!byKey.containsKey(key)) {
      return this;
    }
    Map<String, HotKey> copy = new HashMap<>(byKey);
    copy.remove(key);
    return of(copy.values());
  }

  /**
   * What turns {@code previous} into this table: the entries that are new or differ (fanout or
   * since), and the keys that are gone, both sorted by key. Publishing these (upserts as records,
   * removals as tombstones) to a compacted topic leaves it holding exactly this table.
   */
  public Changes changesSince(HotKeyTable previous) {
    List<HotKey> upserted = new ArrayList<>();
    for (HotKey h : entries) {
      if (!h.equals(previous.get(h.key()))) {
        upserted.add(h);
      }
    }
    List<String> removed = new ArrayList<>();
    for (HotKey h : previous.entries) {
      if (!byKey.containsKey(h.key())) {
        removed.add(h.key());
      }
    }
    return new Changes(List.copyOf(upserted), List.copyOf(removed));
  }

  /** The difference between two tables; see {@link #changesSince}. */
  public record Changes(List<HotKey> upserted, List<String> removed) {
    public Changes {
      upserted = List.copyOf(upserted);
      removed = List.copyOf(removed);
    }

    public boolean isEmpty() {
      return upserted.isEmpty() && removed.isEmpty();
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof HotKeyTable t && t.entries.equals(entries);
  }

  @Override
  public int hashCode() {
    return entries.hashCode();
  }

  @Override
  public String toString() {
    return "HotKeyTable" + entries;
  }
}

package dev.skewer.coordinator.topk;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The K largest counts per window among the results one coordinator partition emitted, for the most
 * recent windows only.
 *
 * <p>Memory is bounded: at most {@code k} entries per window and {@code maxWindows} windows (the
 * oldest window is evicted first). A revision replaces a key's count; a key that was outside the
 * top K is reconsidered when its revision arrives. Ties are broken by key so the order is
 * deterministic.
 *
 * <p>Not thread-safe.
 */
public final class WindowTopK {

  /** Descending count, then ascending key. */
  public static final Comparator<TopKEntry> ORDER =
      Comparator.comparingLong(TopKEntry::count).reversed().thenComparing(TopKEntry::key);

  private final int k;
  private final int maxWindows;
  private final TreeMap<Long, Window> windows = new TreeMap<>();

  public WindowTopK(int k, int maxWindows) {
    if (k < 1) {
      throw new IllegalArgumentException("k must be >= 1, was " + k);
    }
    if (maxWindows < 1) {
      throw new IllegalArgumentException("maxWindows must be >= 1, was " + maxWindows);
    }
    this.k = k;
    this.maxWindows = maxWindows;
  }

  /** Records a key's (possibly revised) count in a window. */
  public void record(long windowStartMs, long windowEndMs, String key, long count) {
    Window w = windows.get(windowStartMs);
    if (w == null) {
      if (windows.size() >= maxWindows) {
        if (windows.firstKey() > windowStartMs) {
          return; // older than everything retained
        }
        windows.pollFirstEntry();
      }
      w = new Window(windowEndMs);
      windows.put(windowStartMs, w);
    }
    w.record(key, count, k);
  }

  /** The top entries of a window, largest first; empty if the window is not retained. */
  public List<TopKEntry> top(long windowStartMs) {
    Window w = windows.get(windowStartMs);
    return w == null ? List.of() : new ArrayList<>(w.sorted);
  }

  /** End of a retained window, or -1. */
  public long windowEndMs(long windowStartMs) {
    Window w = windows.get(windowStartMs);
    return w == null ? -1 : w.endMs;
  }

  public int k() {
    return k;
  }

  /** Merges per-partition top lists of one window into the overall top {@code k}. */
  public static List<TopKEntry> mergeTop(List<List<TopKEntry>> lists, int k) {
    Map<String, Long> counts = new HashMap<>();
    for (List<TopKEntry> list : lists) {
      for (TopKEntry e : list) {
        counts.merge(e.key(), e.count(), Math::max);
      }
    }
    List<TopKEntry> all = new ArrayList<>(counts.size());
    counts.forEach((key, count) -> all.add(new TopKEntry(key, count)));
    all.sort(ORDER);
    return all.size() > k ? new ArrayList<>(all.subList(0, k)) : all;
  }

  private static final class Window {
    final long endMs;
    final TreeSet<TopKEntry> sorted = new TreeSet<>(ORDER);
    final HashMap<String, TopKEntry> byKey = new HashMap<>();

    Window(long endMs) {
      this.endMs = endMs;
    }

    void record(String key, long count, int k) {
      TopKEntry held = byKey.get(key);
      if (held != null) {
        sorted.remove(held);
      } else if (sorted.size() >= k) {
        TopKEntry smallest = sorted.last();
        if (ORDER.compare(new TopKEntry(key, count), smallest) >= 0) {
          return; // would not enter the top K
        }
        sorted.pollLast();
        byKey.remove(smallest.key());
      }
      TopKEntry entry = new TopKEntry(key, count);
      sorted.add(entry);
      byKey.put(key, entry);
    }
  }
}

package dev.skewer.reconcile.internal;

import dev.skewer.core.event.DlqReason;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Which input records the late topic and the DLQ hold, by (source partition, source offset) as
 * their {@code skewer.source.*} headers name them, and how often: 8 bytes per side record.
 *
 * <p>Entries pack {@code offset << 5 | code}: code 0 is the late topic, {@code 1 + ordinal} a DLQ
 * record with that {@link DlqReason}, {@value #DLQ_UNKNOWN} a DLQ record whose reason header is
 * missing or unknown. Offsets must be below 2^58. Add everything, then {@link #seal()}, then look
 * up. Not thread-safe.
 */
public final class SideIndex {

  /** The code of a late-topic record. */
  public static final int LATE = 0;

  /** The code of a DLQ record without a known reason. */
  public static final int DLQ_UNKNOWN = 31;

  private static final int BITS = 5;
  private static final int[] NONE = new int[0];

  private final Map<Integer, long[]> entries = new HashMap<>();
  private final Map<Integer, Integer> sizes = new HashMap<>();
  private boolean sealed;
  private long count;

  /** The code of a DLQ record with {@code reason} (null: unknown). */
  public static int dlqCode(DlqReason reason) {
    return reason == null ? DLQ_UNKNOWN : 1 + reason.ordinal();
  }

  /** The DLQ reason of a code, or null for {@link #LATE} and {@link #DLQ_UNKNOWN}. */
  public static DlqReason reason(int code) {
    return code == LATE || code == DLQ_UNKNOWN ? null : DlqReason.values()[code - 1];
  }

  public void add(int sourcePartition, long sourceOffset, int code) {
    if (sealed) {
      throw new IllegalStateException("add after seal()");
    }
    if (sourceOffset < 0 || sourceOffset >= (1L << (63 - BITS))) {
      throw new IllegalArgumentException("source offset out of range: " + sourceOffset);
    }
    long[] a = entries.get(sourcePartition);
    int n = sizes.getOrDefault(sourcePartition, 0);
    if (a == null || n == a.length) {
      a = a == null ? new long[16] : Arrays.copyOf(a, a.length * 2);
      entries.put(sourcePartition, a);
    }
    a[n] = (sourceOffset << BITS) | code;
    sizes.put(sourcePartition, n + 1);
    count++;
  }

  /** Sorts the entries; lookups are allowed from now on. */
  public void seal() {
    for (Map.Entry<Integer, long[]> e : entries.entrySet()) {
      long[] a = Arrays.copyOf(e.getValue(), sizes.get(e.getKey()));
      Arrays.sort(a);
      e.setValue(a);
    }
    sealed = true;
  }

  /** Side records indexed. */
  public long size() {
    return count;
  }

  /** The codes of every side record of an input record, in code order; empty when none. */
  public int[] lookup(int sourcePartition, long sourceOffset) {
    if (!sealed) {
      throw new IllegalStateException("lookup before seal()");
    }
    long[] a = entries.get(sourcePartition);
    if (a == null) {
      return NONE;
    }
    long lo = sourceOffset << BITS;
    int i = 0;
    int hi = a.length;
    while (i < hi) { // the first entry >= lo
      int mid = (i + hi) >>> 1;
      if (a[mid] < lo) {
        i = mid + 1;
      } else {
        hi = mid;
      }
    }
    int j = i;
    while (j < a.length && (a[j] >>> BITS) == sourceOffset) {
      j++;
    }
    if (j == i) {
      return NONE;
    }
    int[] codes = new int[j - i];
    for (int k = i; k < j; k++) {
      codes[k - i] = (int) (a[k] & ((1 << BITS) - 1));
    }
    return codes;
  }
}

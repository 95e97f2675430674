package dev.skewer.coordinator.query;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Results this coordinator wrote, handed to its own query view so that the view does not parse back
 * the envelopes it reads from the results topic: the writer offers each result once the broker has
 * acknowledged it (at its partition and offset), the view takes it when it reads that record.
 *
 * <p>The topic stays the view's source of truth: the view reads every record as before, in the
 * topic's order, committed records only; the handoff only saves the parse. A record is taken only
 * when the view reads the same partition and offset <em>and</em> the same envelope bytes; anything
 * else — a result of another coordinator, one acknowledged after the view read it, one this bound
 * refused — is parsed as before. Entries the view has read past (an aborted transaction's, one the
 * view read before its acknowledgement) are dropped as soon as it reads a later record of the same
 * partition.
 *
 * <p>Bound: at most {@code maxBytes} of {@link StoredResult#estimatedBytes() estimated} heap; an
 * offer beyond it is refused (the view then parses that record). Normally it holds only what the
 * view has not yet fetched: a fraction of a second of results.
 *
 * <p>Thread-safe: offers come from the producer's I/O thread, takes from the view's.
 */
public final class ResultHandoff {

  /** The default bound: 16 MiB. */
  public static final long DEFAULT_MAX_BYTES = 16L << 20;

  private final long maxBytes;
  private final Map<Integer, ConcurrentSkipListMap<Long, StoredResult>> partitions =
      new ConcurrentHashMap<>();
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicLong taken = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();

  public ResultHandoff(long maxBytes) {
    if (maxBytes < 1) {
      throw new IllegalArgumentException("maxBytes must be >= 1, was " + maxBytes);
    }
    this.maxBytes = maxBytes;
  }

  /** Offers the result acknowledged at {@code partition}, {@code offset} of the results topic. */
  public void offer(int partition, long offset, StoredResult result) {
    long size = result.estimatedBytes();
    if (bytes.addAndGet(size) > maxBytes) {
      bytes.addAndGet(-size);
      refused.incrementAndGet();
      return;
    }
    StoredResult previous =
        partitions
            .computeIfAbsent(partition, p -> new ConcurrentSkipListMap<>())
            .put(offset, result);
    if (previous != null) {
      bytes.addAndGet(-previous.estimatedBytes()); // an offset written again: a recreated topic
    }
  }

  /**
   * The result offered for the record at {@code partition}, {@code offset} if its envelope is
   * {@code value}, else null; drops what was offered for earlier offsets of the partition.
   */
  public StoredResult take(int partition, long offset, byte[] value) {
    ConcurrentSkipListMap<Long, StoredResult> held = partitions.get(partition);
    if (held == null) {
      return null;
    }
    Map.Entry<Long, StoredResult> first;
    while ((first = held.firstEntry()) != null && first.getKey() < offset) {
      if (held.remove(first.getKey(), first.getValue())) {
        bytes.addAndGet(-first.getValue().estimatedBytes());
      }
    }
    StoredResult r = held.remove(offset);
    if (r == null) {
      return null;
    }
    bytes.addAndGet(-r.estimatedBytes());
    if (!Arrays.equals(r.envelope(), value)) {
      return null;
    }
    taken.incrementAndGet();
    return r;
  }

  /** Results the view took instead of parsing them. */
  public long taken() {
    return taken.get();
  }

  /** Offers refused because the handoff was full. */
  public long refused() {
    return refused.get();
  }

  /** Estimated heap bytes held. */
  public long bytes() {
    return bytes.get();
  }
}

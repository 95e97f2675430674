package dev.skewer.coordinator.merge;

import dev.skewer.core.checkpoint.CheckpointFormatException;
import dev.skewer.core.wire.Watermark;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The event-time progress of every source partition as seen on one partials partition, and the
 * three watermarks it implies:
 *
 * <ul>
 *   <li><b>close</b> ({@link #global()}): results ending at or before it are emitted. The minimum
 *       of the sources' close points over the sources that are not idle (an idle source has sent
 *       its open slices before saying so); when every source is idle, over those that have seen
 *       events — or, once every one of those has also reached end of input ({@link
 *       Watermark#finalized}), the maximum: everything any of them announced can close. A source
 *       that has never reported holds it back (its node may not have started).
 *   <li><b>lateness</b> ({@link #latenessMs()}): results whose end + allowed lateness is at or
 *       before it are dropped. The minimum of the sources' lateness watermarks over <em>all</em>
 *       sources, idle or not: a source's lateness watermark is where it stopped accepting events
 *       (its own watermark, or the frontier it adopted), and it arrives after every Partial the
 *       source sent before — so nothing is dropped that a source may still send.
 *   <li><b>frontier</b> ({@link #frontierMs()}): what is published for the nodes to adopt: the
 *       minimum lateness watermark over the sources that are not idle (all idle: over those that
 *       have seen events). An idle source that wakes up judges its events against it.
 * </ul>
 *
 * <p>Per source the maximum of each watermark is kept, so a replay that restarts low never moves
 * time back. A message from an older epoch than one already seen for its source is stale (a
 * zombie's) and refused. Messages carry a sequence number per (source, epoch, partials partition):
 * once one is missing — a lost send — the source's watermarks of that epoch are refused (the
 * Partials before them are incomplete) until its next epoch replays them.
 *
 * <p>Not thread-safe.
 */
public final class SourceWatermarks {

  private long[] watermarkMs;
  private long[] closeMs;
  private long[] epoch;
  private long[] nextSeq;
  private boolean[] gap;
  private boolean[] idle;
  private boolean[] finalized;
  private boolean[] reported;

  public SourceWatermarks(int sourcePartitions) {
    resize(sourcePartitions);
  }

  /** Grows to a new source partition count (partitions can be added to a topic). */
  public void resize(int sourcePartitions) {
    if (sourcePartitions < 1) {
      throw new IllegalArgumentException("sourcePartitions must be >= 1, was " + sourcePartitions);
    }
    int old = watermarkMs == null ? 0 : watermarkMs.length;
    if (sourcePartitions <= old) {
      return;
    }
    watermarkMs = grow(watermarkMs, sourcePartitions, Long.MIN_VALUE);
    closeMs = grow(closeMs, sourcePartitions, Long.MIN_VALUE);
    epoch = grow(epoch, sourcePartitions, 0);
    nextSeq = grow(nextSeq, sourcePartitions, 0);
    gap = old == 0 ? new boolean[sourcePartitions] : Arrays.copyOf(gap, sourcePartitions);
    idle = old == 0 ? new boolean[sourcePartitions] : Arrays.copyOf(idle, sourcePartitions);
    finalized =
        old == 0 ? new boolean[sourcePartitions] : Arrays.copyOf(finalized, sourcePartitions);
    reported = old == 0 ? new boolean[sourcePartitions] : Arrays.copyOf(reported, sourcePartitions);
  }

  private static long[] grow(long[] a, int n, long fill) {
    long[] r = new long[n];
    Arrays.fill(r, fill);
    if (a != null) {
      System.arraycopy(a, 0, r, 0, a.length);
    }
    return r;
  }

  public int sourcePartitions() {
    return watermarkMs.length;
  }

  /**
   * Whether a message of {@code messageEpoch} from {@code source} is current; records the epoch (a
   * newer one starts its sequence afresh).
   *
   * @return false for a stale epoch (older than one already seen)
   */
  public boolean admitEpoch(int source, long messageEpoch) {
    ensure(source);
    if (messageEpoch < epoch[source]) {
      return false;
    }
    if (messageEpoch > epoch[source]) {
      epoch[source] = messageEpoch;
      nextSeq[source] = 0;
      gap[source] = false;
    }
    return true;
  }

  /**
   * Records the sequence number of an admitted message of {@code source}.
   *
   * @return false when a message before it is missing (from now on this epoch's watermarks are
   *     refused)
   */
  public boolean observeSeq(int source, long seq) {
    if (seq < 0) {
      return true; // an older format without numbers
    }
    if (seq != nextSeq[source]) {
      gap[source] = true;
    }
    nextSeq[source] = seq + 1;
    return !gap[source];
  }

  /**
   * Applies a watermark message.
   *
   * @return false if it was refused: stale, or after a lost message of its epoch
   */
  public boolean update(Watermark w) {
    int s = w.sourcePartition();
    if (!admitEpoch(s, w.epoch()) || !observeSeq(s, w.seq())) {
      return false;
    }
    reported[s] = true;
    idle[s] = w.idle();
    finalized[s] = w.finalized();
    watermarkMs[s] = Math.max(watermarkMs[s], w.watermarkMs());
    closeMs[s] = Math.max(closeMs[s], w.closeMs());
    return true;
  }

  /** The close watermark; {@link Long#MIN_VALUE} while it is held back. */
  public long global() {
    long close = minOverActive(closeMs);
    if (close == Long.MIN_VALUE || anyActive()) {
      return close;
    }
    // every source idle: at end of input (all finalized) whatever any of them announced closes
    long max = Long.MIN_VALUE;
    for (int s = 0; s < closeMs.length; s++) {
      if (closeMs[s] != Long.MIN_VALUE) {
        if (!finalized[s]) {
          return close;
        }
        max = Math.max(max, closeMs[s]);
      }
    }
    return max;
  }

  private boolean anyActive() {
    for (boolean i : idle) {
      if (!i) {
        return true;
      }
    }
    return false;
  }

  /** The lateness watermark; {@link Long#MIN_VALUE} while it is held back. */
  public long latenessMs() {
    long min = Long.MAX_VALUE;
    for (int s = 0; s < watermarkMs.length; s++) {
      if (!reported[s]) {
        return Long.MIN_VALUE;
      }
      min = Math.min(min, watermarkMs[s]);
    }
    return min;
  }

  /** The frontier published for the nodes; {@link Long#MIN_VALUE} while unknown. */
  public long frontierMs() {
    return minOverActive(watermarkMs);
  }

  /** Min over the sources that are not idle; all idle: over those seen; any unreported: MIN. */
  private long minOverActive(long[] values) {
    long minActive = Long.MAX_VALUE;
    boolean anyActive = false;
    long minSeen = Long.MAX_VALUE;
    boolean anySeen = false;
    for (int s = 0; s < values.length; s++) {
      if (!reported[s]) {
        return Long.MIN_VALUE;
      }
      if (!idle[s]) {
        anyActive = true;
        minActive = Math.min(minActive, values[s]);
      }
      if (values[s] != Long.MIN_VALUE) {
        anySeen = true;
        minSeen = Math.min(minSeen, values[s]);
      }
    }
    if (anyActive) {
      return minActive;
    }
    return anySeen ? minSeen : Long.MIN_VALUE;
  }

  public long watermarkMs(int source) {
    return watermarkMs[source];
  }

  public long closeMs(int source) {
    return closeMs[source];
  }

  public boolean idle(int source) {
    return idle[source];
  }

  public boolean finalized(int source) {
    return finalized[source];
  }

  public boolean reported(int source) {
    return reported[source];
  }

  public long epoch(int source) {
    return epoch[source];
  }

  /** Whether a message of the source's current epoch was lost (its watermarks are refused). */
  public boolean gap(int source) {
    return gap[source];
  }

  /** Writes every source's state (format 3). */
  void writeTo(DataOutputStream out) throws IOException {
    out.writeInt(watermarkMs.length);
    for (int s = 0; s < watermarkMs.length; s++) {
      out.writeLong(watermarkMs[s]);
      out.writeLong(closeMs[s]);
      out.writeLong(epoch[s]);
      out.writeLong(nextSeq[s]);
      out.writeByte(
          (idle[s] ? 1 : 0) | (reported[s] ? 2 : 0) | (gap[s] ? 4 : 0) | (finalized[s] ? 8 : 0));
    }
  }

  /**
   * Reads what {@link #writeTo} wrote ({@code legacy}: the format-1/2 layout without close points
   * and sequence numbers), growing to at least {@code minSources}.
   */
  static SourceWatermarks readFrom(ByteBuffer in, int minSources, boolean legacy) {
    int n = in.getInt();
    int bytesPerSource = legacy ? 18 : 33;
    if (n < 1 || (long) n * bytesPerSource > in.remaining()) {
      throw new CheckpointFormatException(
          "declared source count " + n + " does not fit the " + in.remaining() + " bytes left");
    }
    SourceWatermarks w = new SourceWatermarks(n);
    for (int s = 0; s < n; s++) {
      w.watermarkMs[s] = in.getLong();
      if (legacy) {
        w.closeMs[s] = w.watermarkMs[s];
        w.epoch[s] = in.getLong();
        w.idle[s] = in.get() != 0;
        w.reported[s] = in.get() != 0;
      } else {
        w.closeMs[s] = in.getLong();
        w.epoch[s] = in.getLong();
        w.nextSeq[s] = in.getLong();
        byte flags = in.get();
        w.idle[s] = (flags & 1) != 0;
        w.reported[s] = (flags & 2) != 0;
        w.gap[s] = (flags & 4) != 0;
        w.finalized[s] = (flags & 8) != 0;
      }
    }
    w.resize(Math.max(n, minSources));
    return w;
  }

  private void ensure(int source) {
    if (source < 0) {
      throw new IllegalArgumentException("source partition must be >= 0, was " + source);
    }
    if (source >= watermarkMs.length) {
      resize(source + 1);
    }
  }
}

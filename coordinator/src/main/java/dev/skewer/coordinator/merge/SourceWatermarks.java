package dev.skewer.coordinator.merge;

import dev.skewer.core.wire.Watermark;
import java.util.Arrays;

/**
 * The watermark of every source partition as seen on one partials partition, and the global
 * watermark they imply.
 *
 * <p>Global watermark: the minimum over the source partitions that are not idle. A source that has
 * never reported holds it back (its node may not have started). When every source is idle, the
 * minimum over the sources that have seen any event: an idle source has nothing in flight, and a
 * node only moves an idle partition's watermark past its open windows when it is told to finalize
 * them (end of input). Per source the maximum watermark is kept, so a replay that restarts low
 * never moves time back. A message from an older epoch than one already seen for its source is
 * stale (a zombie's) and is refused.
 *
 * <p>Not thread-safe.
 */
public final class SourceWatermarks {

  private long[] watermarkMs;
  private long[] epoch;
  private boolean[] idle;
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
    watermarkMs = grow(watermarkMs, sourcePartitions);
    epoch = old == 0 ? new long[sourcePartitions] : Arrays.copyOf(epoch, sourcePartitions);
    idle = old == 0 ? new boolean[sourcePartitions] : Arrays.copyOf(idle, sourcePartitions);
    reported = old == 0 ? new boolean[sourcePartitions] : Arrays.copyOf(reported, sourcePartitions);
  }

  private static long[] grow(long[] a, int n) {
    long[] r = new long[n];
    Arrays.fill(r, Long.MIN_VALUE);
    if (a != null) {
      System.arraycopy(a, 0, r, 0, a.length);
    }
    return r;
  }

  public int sourcePartitions() {
    return watermarkMs.length;
  }

  /**
   * Whether a message of {@code epoch} from {@code source} is current; records the epoch.
   *
   * @return false for a stale epoch (older than one already seen)
   */
  public boolean admitEpoch(int source, long messageEpoch) {
    ensure(source);
    if (messageEpoch < epoch[source]) {
      return false;
    }
    epoch[source] = messageEpoch;
    return true;
  }

  /**
   * Applies a watermark message.
   *
   * @return false if it was refused as stale
   */
  public boolean update(Watermark w) {
    if (!admitEpoch(w.sourcePartition(), w.epoch())) {
      return false;
    }
    int s = w.sourcePartition();
    reported[s] = true;
    idle[s] = w.idle();
    if (w.watermarkMs() > watermarkMs[s]) {
      watermarkMs[s] = w.watermarkMs();
    }
    return true;
  }

  /** The global watermark; {@link Long#MIN_VALUE} while it is held back. */
  public long global() {
    long minActive = Long.MAX_VALUE;
    boolean anyActive = false;
    long minSeen = Long.MAX_VALUE;
    boolean anySeen = false;
    for (int s = 0; s < watermarkMs.length; s++) {
      if (!reported[s]) {
        return Long.MIN_VALUE;
      }
      if (!idle[s]) {
        anyActive = true;
        minActive = Math.min(minActive, watermarkMs[s]);
      }
      if (watermarkMs[s] != Long.MIN_VALUE) {
        anySeen = true;
        minSeen = Math.min(minSeen, watermarkMs[s]);
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

  public boolean idle(int source) {
    return idle[source];
  }

  public boolean reported(int source) {
    return reported[source];
  }

  public long epoch(int source) {
    return epoch[source];
  }

  /** Writes every source's watermark, epoch, idle and reported flags. */
  void writeTo(java.io.DataOutputStream out) throws java.io.IOException {
    out.writeInt(watermarkMs.length);
    for (int s = 0; s < watermarkMs.length; s++) {
      out.writeLong(watermarkMs[s]);
      out.writeLong(epoch[s]);
      out.writeByte(idle[s] ? 1 : 0);
      out.writeByte(reported[s] ? 1 : 0);
    }
  }

  /** Reads what {@link #writeTo} wrote, growing to at least {@code minSources}. */
  static SourceWatermarks readFrom(java.nio.ByteBuffer in, int minSources) {
    int n = in.getInt();
    if (n < 1 || (long) n * 18 > in.remaining()) {
      throw new dev.skewer.core.checkpoint.CheckpointFormatException(
          "declared source count " + n + " does not fit the " + in.remaining() + " bytes left");
    }
    SourceWatermarks w = new SourceWatermarks(n);
    for (int s = 0; s < n; s++) {
      w.watermarkMs[s] = in.getLong();
      w.epoch[s] = in.getLong();
      w.idle[s] = in.get() != 0;
      w.reported[s] = in.get() != 0;
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

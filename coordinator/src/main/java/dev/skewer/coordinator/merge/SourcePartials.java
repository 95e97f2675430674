package dev.skewer.coordinator.merge;

import dev.skewer.core.checkpoint.CheckpointFormatException;
import dev.skewer.core.wire.Partial;
import dev.skewer.core.wire.WireCodec;
import dev.skewer.sketches.Aggregate;
import dev.skewer.sketches.AggregateCodec;
import dev.skewer.sketches.SketchSpec;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * What the coordinator holds for one (key, slice): the latest Partial of each source partition.
 * Every merge engine keeps its slices in these, so the two rules that make results independent of
 * timing live here once:
 *
 * <ul>
 *   <li><b>Replace, never add; never go back.</b> A Partial replaces the one held for its source
 *       only when it reflects more events (a higher version: the count of events folded in, the
 *       same in every replay), whatever its epoch; one with fewer is refused ({@link
 *       SliceMerge.Outcome#STALE}) — a replay cut into other batches passes through lower versions
 *       on its way back up, and a published result must never lose events. A replayed Partial is
 *       therefore idempotent and results only move forward. (Partials of an older epoch than the
 *       source's newest are refused before they get here.)
 *   <li><b>Merge in source order.</b> The held Partials are merged by ascending source partition,
 *       never in arrival order (t-digest merging is not associative).
 * </ul>
 *
 * <p>Not thread-safe.
 */
final class SourcePartials {

  private Partial[] bySource;
  private int held;

  SourcePartials(int sourcePartitions) {
    this.bySource = new Partial[Math.max(1, sourcePartitions)];
  }

  private SourcePartials(Partial[] bySource) {
    this.bySource = bySource;
    for (Partial p : bySource) {
      if (p != null) {
        held++;
      }
    }
  }

  /** Offers a Partial of this (key, slice); see the class contract. */
  SliceMerge.Outcome offer(Partial p) {
    int src = p.sourcePartition();
    if (src >= bySource.length) {
      bySource = Arrays.copyOf(bySource, src + 1);
    }
    Partial h = bySource[src];
    if (h != null) {
      if (p.version() < h.version()) {
        return SliceMerge.Outcome.STALE;
      }
      if (p.version() == h.version()) {
        // the same events (a replay); keep what was merged so a result never flips
        return SliceMerge.Outcome.UNCHANGED;
      }
    } else {
      held++;
    }
    bySource[src] = p;
    return SliceMerge.Outcome.CHANGED;
  }

  /** Merges the held aggregates into {@code target}, in source-partition order. */
  void mergeInto(Aggregate target) {
    for (Partial p : bySource) {
      if (p != null) {
        target.merge(AggregateCodec.decode(p.aggregate()));
      }
    }
  }

  /**
   * The held aggregates merged, in source-partition order. One held aggregate (a key that only one
   * source partition saw, the usual case when events are partitioned by key) is returned as
   * decoded: by Aggregate's identity law, merging it into an empty aggregate would give the same
   * aggregate, encoding included, at the cost of a second copy of every sketch.
   */
  Aggregate merged(SketchSpec spec) {
    if (held == 1) {
      for (Partial p : bySource) {
        if (p != null) {
          Aggregate only = AggregateCodec.decode(p.aggregate());
          only.requireMergeableWith(spec);
          return only;
        }
      }
    }
    Aggregate merged = Aggregate.empty(spec);
    mergeInto(merged);
    return merged;
  }

  /** Adds the held Partials' sources to {@code sources}. */
  void addSourcesTo(ResultSources.Builder sources) {
    for (Partial p : bySource) {
      if (p != null) {
        sources.add(p);
      }
    }
  }

  /** The held Partial whose first event is earliest (lowest source on ties), or null. */
  Partial earliest() {
    Partial earliest = null;
    for (Partial p : bySource) {
      if (p != null && (earliest == null || p.firstEventMs() < earliest.firstEventMs())) {
        earliest = p;
      }
    }
    return earliest;
  }

  /** The earliest first event time of the held Partials ({@link Long#MAX_VALUE} if none). */
  long firstEventMs() {
    long first = Long.MAX_VALUE;
    for (Partial p : bySource) {
      if (p != null) {
        first = Math.min(first, p.firstEventMs());
      }
    }
    return first;
  }

  /** The latest last event time of the held Partials ({@link Long#MIN_VALUE} if none). */
  long lastEventMs() {
    long last = Long.MIN_VALUE;
    for (Partial p : bySource) {
      if (p != null) {
        last = Math.max(last, p.lastEventMs());
      }
    }
    return last;
  }

  /** How many sources have a Partial here. */
  int held() {
    return held;
  }

  /** Writes the held Partial of each source (wire encoding), null as a 0 byte. */
  void writeTo(DataOutputStream out) throws IOException {
    out.writeInt(bySource.length);
    for (Partial p : bySource) {
      if (p == null) {
        out.writeByte(0);
      } else {
        out.writeByte(1);
        byte[] wire = WireCodec.encode(p);
        out.writeInt(wire.length);
        out.write(wire);
      }
    }
  }

  /** Reads what {@link #writeTo} wrote, with room for at least {@code minSources}. */
  static SourcePartials readFrom(ByteBuffer in, int minSources) {
    int sources = Snapshots.count(in, 1);
    Partial[] bySource = new Partial[Math.max(Math.max(sources, minSources), 1)];
    for (int s = 0; s < sources; s++) {
      if (in.get() != 0) {
        byte[] wire = new byte[Snapshots.count(in, 1)];
        in.get(wire);
        if (!(WireCodec.decode(wire) instanceof Partial p)) {
          throw new CheckpointFormatException("a held message is not a Partial");
        }
        bySource[s] = p;
      }
    }
    return new SourcePartials(bySource);
  }
}

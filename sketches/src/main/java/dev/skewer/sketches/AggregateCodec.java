package dev.skewer.sketches;

import dev.skewer.sketches.codec.ByteSink;
import dev.skewer.sketches.codec.ByteSource;
import dev.skewer.sketches.frequency.FrequencySketch;
import dev.skewer.sketches.hll.DistinctSketch;
import dev.skewer.sketches.quantile.QuantileSketch;
import java.util.Objects;

/**
 * The versioned binary codec of {@link Aggregate}; the byte layout is the table in {@link
 * dev.skewer.sketches.codec}.
 *
 * <p>Guarantees: {@link #encode} is deterministic (equal states give equal bytes: maps are written
 * in sorted order, a live t-digest is first compressed into its centroids); {@code
 * decode(encode(a))} has every estimate of {@code a} and continues exactly like it; {@code
 * encode(decode(b))} equals {@code b} for every valid encoding {@code b} (the decoder refuses
 * non-canonical forms: unsorted items, non-minimal varints, ...). Decoding untrusted bytes throws
 * {@link CodecException} and nothing else, checks every declared length against the bytes that
 * remain before allocating, and runs in time linear in the input.
 *
 * <p>Thread-safe (stateless); encoding reads the aggregate, which must not be updated concurrently.
 */
public final class AggregateCodec {
  /** The format version, the first byte of every encoding; bumped on any layout change. */
  public static final int FORMAT_VERSION = 2;

  /**
   * Format 1, still read: the same layout without quantile mode 2 (raw values beside the centroids)
   * and without the heavy-hitter candidates' cached estimates (a format-1 candidate gets its
   * current estimate). Without candidates, a format-1 encoding re-encodes to the same bytes under
   * version 2.
   */
  public static final int FORMAT_VERSION_1 = 1;

  private static final int FLAG_DISTINCT = 1;
  private static final int FLAG_FREQUENCIES = 2;
  private static final int FLAG_QUANTILES = 4;

  private AggregateCodec() {}

  public static byte[] encode(Aggregate aggregate) {
    SketchSpec spec = aggregate.spec();
    ByteSink out = new ByteSink(64 + 32 * spec.numericFields());
    out.writeByte(FORMAT_VERSION);
    out.writeByte(spec.numericFields());
    out.writeByte(
        (spec.distinct() ? FLAG_DISTINCT : 0)
            | (spec.frequencies() ? FLAG_FREQUENCIES : 0)
            | (spec.quantiles() ? FLAG_QUANTILES : 0));
    out.writeByte(spec.hllPrecision());
    out.writeByte(spec.hllSparsePrecision());
    out.writeDouble(spec.cmsEpsilon());
    out.writeDouble(spec.cmsDelta());
    out.writeVarLong(spec.heavyHitterCapacity());
    out.writeDouble(spec.tdigestCompression());
    out.writeVarLong(aggregate.count());
    long[] valueCounts = aggregate.valueCountsArray();
    for (int i = 0; i < valueCounts.length; i++) {
      out.writeVarLong(valueCounts[i]);
      if (valueCounts[i] > 0) {
        out.writeDouble(aggregate.sumsArray()[i]);
        out.writeDouble(aggregate.minsArray()[i]);
        out.writeDouble(aggregate.maxsArray()[i]);
      }
    }
    if (spec.distinct()) {
      aggregate.distinctSketch().encodeTo(out);
    }
    if (spec.frequencies()) {
      aggregate.frequencySketch().encodeTo(out);
    }
    if (spec.quantiles()) {
      aggregate.quantileSketch().encodeTo(out);
    }
    return out.toByteArray();
  }

  /** Decodes bytes; any malformed input throws {@link CodecException} and nothing else. */
  public static Aggregate decode(byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes");
    return decode(bytes, 0, bytes.length);
  }

  public static Aggregate decode(byte[] bytes, int offset, int length) {
    Objects.requireNonNull(bytes, "bytes");
    try {
      return decode(new ByteSource(bytes, offset, length));
    } catch (CodecException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new CodecException("malformed aggregate: " + e, e);
    }
  }

  private static Aggregate decode(ByteSource in) {
    int version = in.readUnsignedByte("format version");
    if (version != FORMAT_VERSION && version != FORMAT_VERSION_1) {
      throw new CodecException(
          "unsupported format version "
              + version
              + " (this build reads "
              + FORMAT_VERSION_1
              + " and "
              + FORMAT_VERSION
              + ")");
    }
    SketchSpec spec = decodeSpec(in);
    long count = in.readVarLong("count");
    int n = spec.numericFields();
    long[] valueCounts = new long[n];
    double[] sums = new double[n];
    double[] mins = new double[n];
    double[] maxs = new double[n];
    for (int i = 0; i < n; i++) {
      valueCounts[i] = in.readVarLong("value count", 0, count);
      if (valueCounts[i] == 0) {
        mins[i] = Double.POSITIVE_INFINITY;
        maxs[i] = Double.NEGATIVE_INFINITY;
        continue;
      }
      sums[i] = in.readDouble("sum");
      mins[i] = in.readDouble("min");
      maxs[i] = in.readDouble("max");
      if (!Double.isFinite(mins[i]) || !Double.isFinite(maxs[i]) || mins[i] > maxs[i]) {
        throw new CodecException(
            "field "
                + i
                + ": min/max must be finite with min <= max, were "
                + mins[i]
                + ", "
                + maxs[i]);
      }
    }
    DistinctSketch distinct =
        spec.distinct()
            ? DistinctSketch.decodeFrom(in, spec.hllPrecision(), spec.hllSparsePrecision())
            : null;
    FrequencySketch frequencies =
        spec.frequencies()
            ? FrequencySketch.decodeFrom(
                in,
                spec.cmsEpsilon(),
                spec.cmsDelta(),
                spec.heavyHitterCapacity(),
                count,
                version != FORMAT_VERSION_1)
            : null;
    QuantileSketch quantiles =
        spec.quantiles() ? QuantileSketch.decodeFrom(in, spec.tdigestCompression(), count) : null;
    in.expectEnd("aggregate");
    return Aggregate.restore(
        spec, count, valueCounts, sums, mins, maxs, distinct, frequencies, quantiles);
  }

  private static SketchSpec decodeSpec(ByteSource in) {
    int numericFields = in.readUnsignedByte("numericFields");
    int flags = in.readUnsignedByte("flags");
    if ((flags & ~(FLAG_DISTINCT | FLAG_FREQUENCIES | FLAG_QUANTILES)) != 0) {
      throw new CodecException("unknown flags " + Integer.toBinaryString(flags));
    }
    int p = in.readUnsignedByte("hllPrecision");
    int sp = in.readUnsignedByte("hllSparsePrecision");
    double epsilon = in.readDouble("cmsEpsilon");
    double delta = in.readDouble("cmsDelta");
    int capacity = in.readVarInt("heavyHitterCapacity", 1, SketchSpec.MAX_HEAVY_HITTER_CAPACITY);
    double compression = in.readDouble("tdigestCompression");
    try {
      return new SketchSpec(
          numericFields,
          (flags & FLAG_DISTINCT) != 0,
          p,
          sp,
          (flags & FLAG_FREQUENCIES) != 0,
          epsilon,
          delta,
          capacity,
          (flags & FLAG_QUANTILES) != 0,
          compression);
    } catch (IllegalArgumentException e) {
      throw new CodecException("invalid spec: " + e.getMessage(), e);
    }
  }
}

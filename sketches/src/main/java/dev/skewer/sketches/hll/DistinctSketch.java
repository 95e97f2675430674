package dev.skewer.sketches.hll;

import com.clearspring.analytics.hash.MurmurHash;
import com.clearspring.analytics.stream.cardinality.CardinalityMergeException;
import com.clearspring.analytics.stream.cardinality.HyperLogLogPlus;
import dev.skewer.sketches.CodecException;
import dev.skewer.sketches.codec.ByteSink;
import dev.skewer.sketches.codec.ByteSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Distinct count of strings: a stream-lib {@link HyperLogLogPlus} (HLL++) that starts sparse
 * (precision p' &le; 25, a few bytes per distinct value) and turns dense (2^p five-bit registers)
 * once the sparse list exceeds 0.75&middot;2^p entries. Internal: use {@code Aggregate}.
 *
 * <p>Error: the estimate's relative standard error is at most 1.04/&radic;(2^p) (Flajolet et al.
 * 2007; Heule et al. 2013). In sparse mode the estimate is linear counting over 2^p' buckets and is
 * far more precise; the reported bound stays the dense one, which is conservative.
 *
 * <p>Merge is the register-wise (or sparse-entry-wise) maximum, so it is exactly associative and
 * commutative: any split of a stream merges to the same state as the whole stream.
 *
 * <p>Implementation note: items are hashed as their UTF-8 bytes with MurmurHash64, not through
 * {@code HyperLogLogPlus.offer(Object)}, which uses the platform default charset and would make
 * sketches built on differently configured JVMs disagree. The wire form is stream-lib's own {@code
 * getBytes()} layout (version -2), which this class validates field by field before handing it to
 * the library: see {@link #decodeFrom}.
 *
 * <p>Not thread-safe.
 */
public final class DistinctSketch {
  private static final int HLL_VERSION_HEADER = -2;

  private final int precision;
  private final int sparsePrecision;
  private HyperLogLogPlus hll;

  public DistinctSketch(int precision, int sparsePrecision) {
    this(precision, sparsePrecision, new HyperLogLogPlus(precision, sparsePrecision));
  }

  private DistinctSketch(int precision, int sparsePrecision, HyperLogLogPlus hll) {
    this.precision = precision;
    this.sparsePrecision = sparsePrecision;
    this.hll = hll;
  }

  public void update(String item) {
    byte[] utf8 = item.getBytes(StandardCharsets.UTF_8);
    hll.offerHashed(MurmurHash.hash64(utf8, utf8.length));
  }

  public void merge(DistinctSketch other) {
    requireCompatible(other);
    try {
      hll.addAll(other.hll);
    } catch (CardinalityMergeException e) {
      throw new IllegalArgumentException("cannot merge HLL sketches: " + e.getMessage(), e);
    }
  }

  private void requireCompatible(DistinctSketch other) {
    if (other.precision != precision || other.sparsePrecision != sparsePrecision) {
      throw new IllegalArgumentException(
          "cannot merge HLL p="
              + precision
              + " p'="
              + sparsePrecision
              + " with p="
              + other.precision
              + " p'="
              + other.sparsePrecision);
    }
  }

  public DistinctSketch copy() {
    DistinctSketch copy = new DistinctSketch(precision, sparsePrecision);
    copy.merge(this);
    return copy;
  }

  public long estimate() {
    return hll.cardinality();
  }

  /** 1.04/&radic;m with m = 2^p: the dense-mode bound, conservative in sparse mode. */
  public double relativeStandardError() {
    return 1.04 / Math.sqrt(1 << precision);
  }

  /** Whether the sketch is still in its sparse representation. */
  public boolean isSparse() {
    return libraryBytes()[formatOffset()] == 1;
  }

  /** Approximate heap footprint in bytes. */
  public long heapBytes() {
    byte[] bytes = libraryBytes();
    long base = 16 + 64; // this object + the HyperLogLogPlus object
    if (bytes[formatOffset()] == 1) {
      // sparse: int[] of entries plus a temp list of about a quarter of it
      long entries = readSparseCount(bytes);
      return base + 16 + 4 * entries + 16 + 4 * Math.max(4, entries / 4);
    }
    return base + 16 + 16 + 4L * registerWords(precision);
  }

  /** Offset of the first register word in stream-lib's dense layout. */
  private int denseRegistersOffset(int p) {
    int size = 4 * registerWords(p);
    return formatOffset() + 1 + (size < 1 << 7 ? 1 : size < 1 << 14 ? 2 : 3);
  }

  private int formatOffset() {
    // int version, varint p (< 128: one byte), varint p' (one byte)
    return 4 + 1 + 1;
  }

  private static long readSparseCount(byte[] bytes) {
    long v = 0;
    for (int i = 7, shift = 0; i < bytes.length && shift < 35; i++, shift += 7) {
      v |= (long) (bytes[i] & 0x7F) << shift;
      if ((bytes[i] & 0x80) == 0) {
        break;
      }
    }
    return v;
  }

  private byte[] libraryBytes() {
    try {
      return hll.getBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // in-memory streams do not fail
    }
  }

  /**
   * Writes {@code varint length, stream-lib bytes}. A dense sketch whose unused register bits are
   * set (stream-lib's 5-bit registers overflow for run lengths &ge; 32, about once per 2^31 items)
   * is first re-folded into a fresh sketch, which keeps the 5 visible bits of every register: same
   * estimate, one canonical byte form.
   */
  public void encodeTo(ByteSink out) {
    byte[] bytes = libraryBytes();
    if (bytes[formatOffset()] == 0
        && hasStrayBits(bytes, denseRegistersOffset(precision), precision)) {
      HyperLogLogPlus fresh = new HyperLogLogPlus(precision, sparsePrecision);
      try {
        fresh.addAll(hll);
      } catch (CardinalityMergeException e) {
        throw new IllegalStateException(e);
      }
      hll = fresh;
      bytes = libraryBytes();
    }
    out.writeVarLong(bytes.length);
    out.writeBytes(bytes);
  }

  /**
   * Whether the big-endian register words starting at {@code at} have bits set that no register
   * reads: the top two bits of each word (6 five-bit registers use 30), and slots past 2^p.
   */
  static boolean hasStrayBits(byte[] bytes, int at, int precision) {
    int words = registerWords(precision);
    int registers = 1 << precision;
    for (int w = 0; w < words; w++) {
      int i = at + 4 * w;
      int word =
          (bytes[i] & 0xFF) << 24
              | (bytes[i + 1] & 0xFF) << 16
              | (bytes[i + 2] & 0xFF) << 8
              | (bytes[i + 3] & 0xFF);
      int used = Math.max(0, Math.min(6, registers - 6 * w));
      int usedMask = used == 6 ? 0x3FFFFFFF : (1 << (5 * used)) - 1;
      if ((word & ~usedMask) != 0) {
        return true;
      }
    }
    return false;
  }

  /** Number of 32-bit words of stream-lib's RegisterSet for 2^p registers (6 per word). */
  static int registerWords(int precision) {
    int bits = (1 << precision) / 6;
    if (bits == 0) {
      return 1;
    }
    return bits % Integer.SIZE == 0 ? bits : bits + 1;
  }

  /**
   * Reads what {@link #encodeTo} wrote, validating stream-lib's layout before the library sees it:
   * the version header, p and p' equal to the expected ones, the dense register array of exactly
   * the size stream-lib allocates for 2^p registers, or a sparse list of at most 0.75&middot;2^p
   * minimal varint deltas whose entries are each a value HLL++'s sparse encoding can produce, in
   * strictly increasing index order. Anything else is a {@link CodecException}.
   */
  public static DistinctSketch decodeFrom(ByteSource in, int precision, int sparsePrecision) {
    int length = in.readVarInt("HLL length", 0, Integer.MAX_VALUE);
    byte[] bytes = in.readBytes(length, "HLL bytes");
    ByteSource hllIn = new ByteSource(bytes, 0, bytes.length);
    int version = readInt(hllIn);
    if (version != HLL_VERSION_HEADER) {
      throw new CodecException("unsupported HLL version header " + version);
    }
    int p = (int) hllIn.readVarLong("HLL p");
    int sp = (int) hllIn.readVarLong("HLL p'");
    if (p != precision || sp != sparsePrecision) {
      throw new CodecException(
          "HLL precision p="
              + p
              + " p'="
              + sp
              + " does not match spec p="
              + precision
              + " p'="
              + sparsePrecision);
    }
    int format = hllIn.readVarInt("HLL format", 0, 1);
    if (format == 0) {
      int expected = 4 * registerWords(precision);
      int size = hllIn.readVarInt("HLL register bytes", expected, expected);
      hllIn.require(size, "HLL registers");
      int registersAt = hllIn.position();
      hllIn.readBytes(size, "HLL registers");
      if (hasStrayBits(bytes, registersAt, precision)) {
        throw new CodecException("HLL register words have bits set outside the 2^p registers");
      }
    } else {
      int threshold = (int) ((1 << precision) * 0.75);
      int n = hllIn.readVarInt("HLL sparse entry count", 0, threshold);
      hllIn.require(n, "HLL sparse entries");
      int previous = 0;
      long previousIndex = -1;
      for (int i = 0; i < n; i++) {
        int k = previous + readVarInt32(hllIn);
        long index = validSparseIndex(k, precision, sparsePrecision);
        if (index <= previousIndex) {
          throw new CodecException("HLL sparse entries not strictly increasing at entry " + i);
        }
        previousIndex = index;
        previous = k;
      }
    }
    hllIn.expectEnd("HLL sketch");
    try {
      HyperLogLogPlus decoded = HyperLogLogPlus.Builder.build(bytes);
      if (format == 1) {
        return new DistinctSketch(precision, sparsePrecision, decoded);
      }
      // stream-lib builds a dense sketch with p' = 0, which getBytes() would then write: fold it
      // into a fresh (p, p') sketch instead, so that the bytes round-trip
      HyperLogLogPlus hll = new HyperLogLogPlus(precision, sparsePrecision);
      hll.addAll(decoded);
      return new DistinctSketch(precision, sparsePrecision, hll);
    } catch (IOException | CardinalityMergeException | RuntimeException e) {
      throw new CodecException("stream-lib refused HLL bytes: " + e.getMessage(), e);
    }
  }

  private static int readInt(ByteSource in) {
    int v = 0;
    for (int i = 0; i < 4; i++) {
      v = (v << 8) | in.readUnsignedByte("HLL header");
    }
    return v;
  }

  /** stream-lib's unsigned 32-bit varint, required minimal (at most 5 bytes, no zero tail). */
  private static int readVarInt32(ByteSource in) {
    int v = 0;
    for (int shift = 0; shift <= 28; shift += 7) {
      int b = in.readUnsignedByte("HLL sparse entry");
      if (shift == 28 && b > 0x0F) {
        throw new CodecException("HLL sparse entry varint overflows 32 bits");
      }
      v |= (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        if (b == 0 && shift > 0) {
          throw new CodecException("non-minimal varint in HLL sparse entry");
        }
        return v;
      }
    }
    throw new CodecException("HLL sparse entry varint longer than 5 bytes");
  }

  /**
   * The sparse index (p' bits) of an encoded entry, after checking that HLL++'s sparse encoding
   * could have produced it: flagged entries {@code (idx' << 7) | (runLength ^ 63) << 1 | 1} with
   * the low p'-p bits of idx' zero and a run length HLL++ can observe; unflagged entries {@code
   * idx' << 1} with some low p'-p bit of idx' set.
   */
  private static long validSparseIndex(int k, int p, int sp) {
    int lowBits = sp - p;
    int lowMask = (1 << lowBits) - 1;
    if ((k & 1) == 1) {
      int index = k >>> 7;
      if ((index >>> sp) != 0 || (index & lowMask) != 0) {
        throw new CodecException("invalid HLL sparse entry " + Integer.toUnsignedString(k));
      }
      int runLength = ((k >>> 1) & 63) ^ 63;
      if (runLength < lowBits + 1 || runLength > 65 - p) {
        throw new CodecException("invalid HLL run length " + runLength);
      }
      return index;
    }
    int index = k >>> 1;
    if ((index >>> sp) != 0 || (index & lowMask) == 0) {
      throw new CodecException("invalid HLL sparse entry " + Integer.toUnsignedString(k));
    }
    return index;
  }
}

package dev.skewer.core.wire;

import dev.skewer.core.window.WindowShape;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Encodes and decodes {@link PartialsMessage}s in the layout of the package documentation.
 * Thread-safe (stateless). {@link #decode} throws {@link WireFormatException} and nothing else for
 * any input, and allocates no more than the input's length warrants.
 */
public final class WireCodec {

  /** The format version written in byte 0. */
  public static final byte FORMAT_VERSION = 3;

  /** Format 2, still read: no sequence numbers, no first window end, no close watermark. */
  public static final byte FORMAT_VERSION_2 = 2;

  /** Format 1, still read: its Partials are tumbling, with no extent. */
  public static final byte FORMAT_VERSION_1 = 1;

  /** Type tag of {@link Partial}. */
  public static final byte TAG_PARTIAL = 1;

  /** Type tag of {@link Watermark}. */
  public static final byte TAG_WATERMARK = 2;

  /** The longest key, in UTF-8 bytes. */
  public static final int MAX_KEY_BYTES = 65_536;

  /** The longest dimension value, in UTF-8 bytes. */
  public static final int MAX_DIMENSION_BYTES = 65_536;

  private static final int PARTIAL_FIXED_BYTES = 96;
  private static final int WATERMARK_BYTES = 39;
  private static final int WATERMARK_V2_BYTES = 23;

  private WireCodec() {}

  /**
   * Encodes {@code message}. Throws {@link IllegalArgumentException} when a Partial's key is longer
   * than {@link #MAX_KEY_BYTES} in UTF-8. Keys should be well-formed UTF-16 (the event decoder
   * guarantees it); a lone surrogate would be encoded as {@code ?}.
   */
  public static byte[] encode(PartialsMessage message) {
    if (message instanceof Partial p) {
      byte[] key = p.key().getBytes(StandardCharsets.UTF_8);
      if (key.length > MAX_KEY_BYTES) {
        throw new IllegalArgumentException(
            "key must be at most " + MAX_KEY_BYTES + " UTF-8 bytes, was " + key.length);
      }
      String[] dims = p.dimensions();
      byte[][] dimBytes = new byte[dims.length][];
      int dimsLength = 0;
      for (int i = 0; i < dims.length; i++) {
        if (dims[i] != null) {
          dimBytes[i] = dims[i].getBytes(StandardCharsets.UTF_8);
          if (dimBytes[i].length > MAX_DIMENSION_BYTES) {
            throw new IllegalArgumentException(
                "dimension "
                    + i
                    + " must be at most "
                    + MAX_DIMENSION_BYTES
                    + " UTF-8 bytes, was "
                    + dimBytes[i].length);
          }
          dimsLength += dimBytes[i].length;
        }
        dimsLength += 4;
      }
      ByteBuffer b =
          ByteBuffer.allocate(PARTIAL_FIXED_BYTES + dimsLength + key.length + p.aggregate().length);
      b.put(FORMAT_VERSION).put(TAG_PARTIAL);
      b.putInt(p.sourcePartition()).putLong(p.epoch()).putLong(p.seq()).putLong(p.version());
      b.putLong(p.sliceStartMs()).putLong(p.sliceEndMs()).putLong(p.firstWindowEndMs());
      b.putLong(p.firstEventMs()).putLong(p.lastEventMs());
      WindowShape shape = p.shape();
      b.put((byte) shape.code());
      if (shape instanceof WindowShape.Hopping h) {
        b.putLong(h.sizeMs()).putLong(h.hopMs());
      } else if (shape instanceof WindowShape.Session s) {
        b.putLong(s.gapMs()).putLong(0);
      } else {
        b.putLong(0).putLong(0);
      }
      b.put((byte) dims.length);
      for (byte[] d : dimBytes) {
        if (d == null) {
          b.putInt(-1);
        } else {
          b.putInt(d.length).put(d);
        }
      }
      b.putInt(key.length).put(key);
      b.putInt(p.aggregate().length).put(p.aggregate());
      return b.array();
    }
    Watermark w = (Watermark) message;
    ByteBuffer b = ByteBuffer.allocate(WATERMARK_BYTES);
    b.put(FORMAT_VERSION).put(TAG_WATERMARK);
    b.putInt(w.sourcePartition()).putLong(w.epoch()).putLong(w.seq());
    b.putLong(w.watermarkMs()).putLong(w.closeMs());
    b.put((byte) ((w.idle() ? 1 : 0) | (w.finalized() ? 2 : 0)));
    return b.array();
  }

  /** Decodes {@code bytes}; any malformed input throws {@link WireFormatException}. */
  public static PartialsMessage decode(byte[] bytes) {
    if (bytes == null) {
      throw new WireFormatException("null input");
    }
    if (bytes.length < 2) {
      throw new WireFormatException("truncated header: " + bytes.length + " bytes, need 2");
    }
    byte version = bytes[0];
    if (version != FORMAT_VERSION && version != FORMAT_VERSION_2 && version != FORMAT_VERSION_1) {
      throw new WireFormatException(
          "unsupported format version "
              + version
              + " (this reader knows "
              + FORMAT_VERSION_1
              + " to "
              + FORMAT_VERSION
              + ")");
    }
    ByteBuffer b = ByteBuffer.wrap(bytes, 2, bytes.length - 2);
    try {
      switch (bytes[1]) {
        case TAG_PARTIAL:
          return version == FORMAT_VERSION_1 ? decodePartialV1(b) : decodePartial(b, version);
        case TAG_WATERMARK:
          return decodeWatermark(b, version);
        default:
          throw new WireFormatException("unknown type tag " + bytes[1]);
      }
    } catch (BufferUnderflowException e) {
      throw new WireFormatException("truncated message (" + bytes.length + " bytes)", e);
    } catch (IllegalArgumentException e) {
      throw new WireFormatException("invalid field: " + e.getMessage(), e);
    }
  }

  /** Format 1: a tumbling Partial without extent or dimensions. */
  private static Partial decodePartialV1(ByteBuffer b) {
    int sourcePartition = b.getInt();
    long epoch = b.getLong();
    long version = b.getLong();
    long sliceStartMs = b.getLong();
    long sliceEndMs = b.getLong();
    String key = key(b);
    byte[] aggregate = aggregate(b);
    return new Partial(sourcePartition, epoch, version, key, sliceStartMs, sliceEndMs, aggregate);
  }

  private static Partial decodePartial(ByteBuffer b, byte format) {
    boolean v3 = format == FORMAT_VERSION;
    int sourcePartition = b.getInt();
    long epoch = b.getLong();
    long seq = v3 ? b.getLong() : -1;
    long version = b.getLong();
    long sliceStartMs = b.getLong();
    long sliceEndMs = b.getLong();
    long firstWindowEndMs = v3 ? b.getLong() : sliceEndMs;
    long firstEventMs = b.getLong();
    long lastEventMs = b.getLong();
    byte shapeCode = b.get();
    long paramA = b.getLong();
    long paramB = b.getLong();
    WindowShape shape;
    switch (shapeCode) {
      case 0:
        shape = WindowShape.Tumbling.INSTANCE;
        break;
      case 1:
        shape = new WindowShape.Hopping(paramA, paramB);
        break;
      case 2:
        shape = new WindowShape.Session(paramA);
        break;
      default:
        throw new WireFormatException("unknown window shape " + shapeCode);
    }
    int dimCount = b.get() & 0xff;
    if ((long) dimCount * 4 > b.remaining()) {
      throw new WireFormatException(
          dimCount + " dimensions do not fit the " + b.remaining() + " bytes remaining");
    }
    String[] dims = dimCount == 0 ? Partial.NO_DIMENSIONS : new String[dimCount];
    for (int i = 0; i < dimCount; i++) {
      int length = b.getInt();
      if (length == -1) {
        continue;
      }
      if (length < 0 || length > MAX_DIMENSION_BYTES || length > b.remaining()) {
        throw new WireFormatException(
            "dimension length "
                + length
                + " is not in [-1, "
                + MAX_DIMENSION_BYTES
                + "] or exceeds the "
                + b.remaining()
                + " bytes remaining");
      }
      dims[i] = utf8(b, length, "dimension");
    }
    String key = key(b);
    byte[] aggregate = aggregate(b);
    return new Partial(
        sourcePartition,
        epoch,
        version,
        key,
        sliceStartMs,
        sliceEndMs,
        aggregate,
        shape,
        firstEventMs,
        lastEventMs,
        dims,
        firstWindowEndMs,
        seq);
  }

  private static String key(ByteBuffer b) {
    int keyLength = b.getInt();
    if (keyLength < 1 || keyLength > MAX_KEY_BYTES) {
      throw new WireFormatException(
          "key length must be in [1, " + MAX_KEY_BYTES + "], was " + keyLength);
    }
    if (keyLength > b.remaining()) {
      throw new WireFormatException(
          "key length " + keyLength + " exceeds the " + b.remaining() + " bytes remaining");
    }
    return utf8(b, keyLength, "key");
  }

  private static byte[] aggregate(ByteBuffer b) {
    int aggregateLength = b.getInt();
    if (aggregateLength < 0 || aggregateLength != b.remaining()) {
      throw new WireFormatException(
          "aggregate length "
              + aggregateLength
              + " does not match the "
              + b.remaining()
              + " bytes remaining");
    }
    byte[] aggregate = new byte[aggregateLength];
    b.get(aggregate);
    return aggregate;
  }

  private static Watermark decodeWatermark(ByteBuffer b, byte format) {
    boolean v3 = format == FORMAT_VERSION;
    int size = v3 ? WATERMARK_BYTES : WATERMARK_V2_BYTES;
    if (b.remaining() != size - 2) {
      throw new WireFormatException(
          "a watermark of format " + format + " is " + size + " bytes, was " + (b.remaining() + 2));
    }
    int sourcePartition = b.getInt();
    long epoch = b.getLong();
    long seq = v3 ? b.getLong() : -1;
    long watermarkMs = b.getLong();
    long closeMs = v3 ? b.getLong() : watermarkMs;
    byte flags = b.get();
    if ((flags & ~(v3 ? 3 : 1)) != 0 || flags == 2) {
      throw new WireFormatException("unknown watermark flags " + flags);
    }
    return new Watermark(
        sourcePartition, epoch, watermarkMs, (flags & 1) != 0, closeMs, seq, (flags & 2) != 0);
  }

  private static String utf8(ByteBuffer b, int length, String what) {
    ByteBuffer slice = b.slice();
    slice.limit(length);
    b.position(b.position() + length);
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    try {
      CharBuffer chars = decoder.decode(slice);
      return chars.toString();
    } catch (CharacterCodingException e) {
      throw new WireFormatException(what + " is not valid UTF-8", e);
    }
  }
}

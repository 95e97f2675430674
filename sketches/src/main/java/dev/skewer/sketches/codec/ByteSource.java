package dev.skewer.sketches.codec;

import dev.skewer.sketches.CodecException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * A bounded big-endian reader over a byte range. Every read checks the bytes that remain and fails
 * with {@link CodecException} naming the field it was reading; variable-length integers must be
 * minimal (so that a valid encoding has exactly one byte form). Internal: not part of the Skewer
 * API.
 *
 * <p>Not thread-safe.
 */
public final class ByteSource {
  private final byte[] bytes;
  private final int end;
  private int pos;

  public ByteSource(byte[] bytes, int offset, int length) {
    if (offset < 0 || length < 0 || offset > bytes.length - length) {
      throw new CodecException(
          "byte range out of bounds: offset="
              + offset
              + " length="
              + length
              + " of "
              + bytes.length);
    }
    this.bytes = bytes;
    this.pos = offset;
    this.end = offset + length;
  }

  public int remaining() {
    return end - pos;
  }

  public int position() {
    return pos;
  }

  /** Fails unless at least {@code n} bytes remain: call before allocating for {@code n} items. */
  public void require(long n, String what) {
    if (n < 0 || n > remaining()) {
      throw new CodecException(
          "truncated or oversized " + what + ": needs " + n + " bytes, " + remaining() + " remain");
    }
  }

  public int readUnsignedByte(String what) {
    require(1, what);
    return bytes[pos++] & 0xFF;
  }

  public long readLong(String what) {
    require(8, what);
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (bytes[pos++] & 0xFF);
    }
    return v;
  }

  public double readDouble(String what) {
    return Double.longBitsToDouble(readLong(what));
  }

  /** A minimal unsigned LEB128 value in [0, Long.MAX_VALUE]. */
  public long readVarLong(String what) {
    long v = 0;
    for (int shift = 0; shift < 63; shift += 7) {
      int b = readUnsignedByte(what);
      v |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        if (b == 0 && shift > 0) {
          throw new CodecException("non-minimal varint in " + what);
        }
        return v;
      }
    }
    throw new CodecException("varint longer than 9 bytes in " + what);
  }

  /** A minimal varint in [min, max]. */
  public long readVarLong(String what, long min, long max) {
    long v = readVarLong(what);
    if (v < min || v > max) {
      throw new CodecException(what + " out of range [" + min + ", " + max + "]: " + v);
    }
    return v;
  }

  public int readVarInt(String what, int min, int max) {
    return (int) readVarLong(what, min, max);
  }

  public byte[] readBytes(int n, String what) {
    require(n, what);
    byte[] out = new byte[n];
    System.arraycopy(bytes, pos, out, 0, n);
    pos += n;
    return out;
  }

  /** A varint-length-prefixed UTF-8 string; malformed UTF-8 is refused, not replaced. */
  public String readString(String what) {
    int len = readVarInt(what + " length", 0, Integer.MAX_VALUE);
    require(len, what);
    try {
      String s =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes, pos, len))
              .toString();
      pos += len;
      return s;
    } catch (CharacterCodingException e) {
      throw new CodecException("malformed UTF-8 in " + what, e);
    }
  }

  public void expectEnd(String what) {
    if (remaining() != 0) {
      throw new CodecException(remaining() + " trailing bytes after " + what);
    }
  }
}

package dev.skewer.sketches.codec;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable big-endian byte buffer used by the encoders. Internal: not part of the Skewer API.
 *
 * <p>Not thread-safe.
 */
public final class ByteSink {
  private byte[] buf;
  private int size;

  public ByteSink(int initialCapacity) {
    buf = new byte[Math.max(16, initialCapacity)];
  }

  private void ensure(int extra) {
    int needed = size + extra;
    if (needed < 0) {
      throw new IllegalStateException("encoding larger than 2 GiB");
    }
    if (needed > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(needed, buf.length * 2));
    }
  }

  public void writeByte(int b) {
    ensure(1);
    buf[size++] = (byte) b;
  }

  public void writeBytes(byte[] bytes) {
    ensure(bytes.length);
    System.arraycopy(bytes, 0, buf, size, bytes.length);
    size += bytes.length;
  }

  public void writeLong(long v) {
    ensure(8);
    for (int shift = 56; shift >= 0; shift -= 8) {
      buf[size++] = (byte) (v >>> shift);
    }
  }

  /** Writes the raw IEEE-754 bits, so every double (including NaN payloads) round-trips. */
  public void writeDouble(double v) {
    writeLong(Double.doubleToRawLongBits(v));
  }

  /** Unsigned LEB128, minimal length; {@code v} must be non-negative. */
  public void writeVarLong(long v) {
    if (v < 0) {
      throw new IllegalArgumentException("negative varint: " + v);
    }
    ensure(10);
    while ((v & ~0x7FL) != 0) {
      buf[size++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    buf[size++] = (byte) v;
  }

  /** A UTF-8 string prefixed by its byte length as a varint. */
  public void writeString(String s) {
    byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
    writeVarLong(utf8.length);
    writeBytes(utf8);
  }

  public int size() {
    return size;
  }

  public byte[] toByteArray() {
    return Arrays.copyOf(buf, size);
  }
}

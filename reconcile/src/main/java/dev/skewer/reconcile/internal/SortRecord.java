package dev.skewer.reconcile.internal;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;

/**
 * The records a reconciliation sorts, so that everything about one key arrives together: the
 * streamed results of the key, the key's events that a side topic holds, and the key's events to
 * aggregate, the latter in (source partition, offset) order — the order the node folded them in.
 *
 * <p>Layout (big-endian): {@code keyLength:i32 key:utf8 type:u8 partition:i32 offset:i64} then the
 * payload of the type:
 *
 * <table>
 *   <caption>payloads</caption>
 *   <tr><th>type</th><th>payload</th></tr>
 *   <tr><td>{@link #RESULT} (results topic partition and offset)</td>
 *       <td>{@code value:bytes} (the rest of the record: the result JSON)</td></tr>
 *   <tr><td>{@link #SIDE} (source partition and offset)</td>
 *       <td>{@code eventTimeMs:i64 kind:u8} (0 late, 1 DLQ)</td></tr>
 *   <tr><td>{@link #EVENT} (source partition and offset)</td>
 *       <td>{@code eventTimeMs:i64 watermarkMs:i64 numeric:u8 {f64}* distinct:str frequency:str
 *       quantile:f64 dimensions:u8 {str}*} (watermarkMs: the source partition's watermark when the
 *       event arrived, before it)</td></tr>
 * </table>
 *
 * A {@code str} is {@code length:i32} (-1 = null) then UTF-8, or, for strings with a lone UTF-16
 * surrogate (which UTF-8 cannot carry), {@code -2 - charCount:i32} then UTF-16 chars. Records sort
 * by key bytes (unsigned), then type, partition and offset.
 */
public final class SortRecord {

  public static final byte RESULT = 0;
  public static final byte SIDE = 1;
  public static final byte EVENT = 2;

  public static final byte SIDE_LATE = 0;
  public static final byte SIDE_DLQ = 1;

  /** Key bytes, then type, partition, offset. */
  public static final Comparator<byte[]> ORDER = SortRecord::compare;

  private SortRecord() {}

  static int compare(byte[] a, byte[] b) {
    int la = readInt(a, 0);
    int lb = readInt(b, 0);
    int c = Arrays.compareUnsigned(a, 4, 4 + la, b, 4, 4 + lb);
    if (c != 0) {
      return c;
    }
    int ia = 4 + la;
    int ib = 4 + lb;
    c = Byte.compare(a[ia], b[ib]);
    if (c != 0) {
      return c;
    }
    c = Integer.compare(readInt(a, ia + 1), readInt(b, ib + 1));
    if (c != 0) {
      return c;
    }
    return Long.compare(readLong(a, ia + 5), readLong(b, ib + 5));
  }

  private static int readInt(byte[] b, int i) {
    return ((b[i] & 0xff) << 24)
        | ((b[i + 1] & 0xff) << 16)
        | ((b[i + 2] & 0xff) << 8)
        | (b[i + 3] & 0xff);
  }

  private static long readLong(byte[] b, int i) {
    return ((long) readInt(b, i) << 32) | (readInt(b, i + 4) & 0xffffffffL);
  }

  /** Encodes records; reuses one buffer (not thread-safe). */
  public static final class Writer {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
    private final DataOutputStream out = new DataOutputStream(bytes);

    private void header(String key, byte type, int partition, long offset) throws IOException {
      bytes.reset();
      byte[] k = key.getBytes(StandardCharsets.UTF_8);
      out.writeInt(k.length);
      out.write(k);
      out.writeByte(type);
      out.writeInt(partition);
      out.writeLong(offset);
    }

    public byte[] result(String key, int partition, long offset, byte[] value) {
      try {
        header(key, RESULT, partition, offset);
        out.write(value);
        return bytes.toByteArray();
      } catch (IOException e) {
        throw new UncheckedIOException(e); // in memory
      }
    }

    public byte[] side(String key, int partition, long offset, long eventTimeMs, byte kind) {
      try {
        header(key, SIDE, partition, offset);
        out.writeLong(eventTimeMs);
        out.writeByte(kind);
        return bytes.toByteArray();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    public byte[] event(
        String key,
        int partition,
        long offset,
        long eventTimeMs,
        long watermarkMs,
        double[] numeric,
        String distinct,
        String frequency,
        double quantile,
        String[] dimensions) {
      try {
        header(key, EVENT, partition, offset);
        out.writeLong(eventTimeMs);
        out.writeLong(watermarkMs);
        out.writeByte(numeric.length);
        for (double d : numeric) {
          out.writeDouble(d);
        }
        writeString(distinct);
        writeString(frequency);
        out.writeDouble(quantile);
        out.writeByte(dimensions.length);
        for (String d : dimensions) {
          writeString(d);
        }
        return bytes.toByteArray();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    private void writeString(String s) throws IOException {
      if (s == null) {
        out.writeInt(-1);
      } else if (wellFormed(s)) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
      } else {
        out.writeInt(-2 - s.length());
        out.writeChars(s);
      }
    }

    private static boolean wellFormed(String s) {
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        if (Character.isHighSurrogate(c)) {
          if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
            i++;
            continue;
          }
          return false;
        }
        if (Character.isLowSurrogate(c)) {
          return false;
        }
      }
      return true;
    }
  }

  /** A decoded view of one record (fields read eagerly; not thread-safe, reusable). */
  public static final class Reader {
    private String key;
    private byte[] keyBytes;
    private byte type;
    private int partition;
    private long offset;
    private ByteBuffer payload;

    /** Reads the header of {@code record}; the payload accessors then read its payload. */
    public Reader read(byte[] record) {
      ByteBuffer in = ByteBuffer.wrap(record);
      int kl = in.getInt();
      keyBytes = Arrays.copyOfRange(record, 4, 4 + kl);
      key = null;
      in.position(4 + kl);
      type = in.get();
      partition = in.getInt();
      offset = in.getLong();
      payload = in;
      return this;
    }

    /** Whether {@code record} has the same key as the record last {@linkplain #read read}. */
    public boolean sameKey(byte[] record) {
      int kl = readInt(record, 0);
      return kl == keyBytes.length && Arrays.equals(record, 4, 4 + kl, keyBytes, 0, kl);
    }

    public String key() {
      if (key == null) {
        key = new String(keyBytes, StandardCharsets.UTF_8);
      }
      return key;
    }

    public byte type() {
      return type;
    }

    public int partition() {
      return partition;
    }

    public long offset() {
      return offset;
    }

    /** {@link #RESULT}: the result JSON. */
    public byte[] resultValue() {
      byte[] v = new byte[payload.remaining()];
      payload.get(v);
      return v;
    }

    /** {@link #SIDE} or {@link #EVENT}: the event time (read first). */
    public long eventTimeMs() {
      return payload.getLong();
    }

    /** {@link #SIDE}: the side kind, after {@link #eventTimeMs()}. */
    public byte sideKind() {
      return payload.get();
    }

    /**
     * {@link #EVENT}: fills {@code into} after {@link #eventTimeMs()}; the arrays must have the
     * record's sizes.
     */
    public void event(Event into) {
      into.watermarkMs = payload.getLong();
      int n = payload.get() & 0xff;
      if (n != into.numeric.length) {
        throw new IllegalStateException(
            "record has " + n + " numeric values, expected " + into.numeric.length);
      }
      for (int i = 0; i < n; i++) {
        into.numeric[i] = payload.getDouble();
      }
      into.distinct = readString();
      into.frequency = readString();
      into.quantile = payload.getDouble();
      int d = payload.get() & 0xff;
      if (d != into.dimensions.length) {
        throw new IllegalStateException(
            "record has " + d + " dimensions, expected " + into.dimensions.length);
      }
      for (int i = 0; i < d; i++) {
        into.dimensions[i] = readString();
      }
    }

    private String readString() {
      int length = payload.getInt();
      if (length == -1) {
        return null;
      }
      if (length >= 0) {
        String s =
            new String(
                payload.array(),
                payload.arrayOffset() + payload.position(),
                length,
                StandardCharsets.UTF_8);
        payload.position(payload.position() + length);
        return s;
      }
      int chars = -2 - length;
      char[] c = new char[chars];
      for (int i = 0; i < chars; i++) {
        c[i] = payload.getChar();
      }
      return new String(c);
    }
  }

  /** The aggregation inputs of one event, as the node's decoder produced them. */
  public static final class Event {
    /** The source partition's watermark when the event arrived ({@code Long.MIN_VALUE}: none). */
    public long watermarkMs;

    public final double[] numeric;
    public String distinct;
    public String frequency;
    public double quantile;
    public final String[] dimensions;

    public Event(int numericFields, int dimensionCount) {
      this.numeric = new double[numericFields];
      this.dimensions = new String[dimensionCount];
    }
  }
}

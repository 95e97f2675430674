package dev.skewer.core.checkpoint;

import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Where a stage writes its checkpoint state: an output stream that is not synchronized and keeps
 * what it is given in blocks (the first {@value #FIRST_BLOCK} bytes, each next one twice as large
 * up to {@value #MAX_BLOCK}), so a state of hundreds of megabytes is never copied while it grows,
 * as a {@code ByteArrayOutputStream} copies it at every doubling. {@link #toByteArray} copies it
 * once into an array of exactly its size. Single owner; not thread-safe.
 */
public final class StateOutput extends OutputStream {

  static final int FIRST_BLOCK = 4 * 1024;
  static final int MAX_BLOCK = 1024 * 1024;

  /** The largest array the JVM reliably allocates. */
  private static final int MAX_ARRAY = Integer.MAX_VALUE - 8;

  private final List<byte[]> filled = new ArrayList<>();
  private long filledBytes;
  private byte[] block = new byte[FIRST_BLOCK];
  private int pos;

  @Override
  public void write(int b) {
    if (pos == block.length) {
      nextBlock();
    }
    block[pos++] = (byte) b;
  }

  @Override
  public void write(byte[] b, int off, int len) {
    Objects.checkFromIndexSize(off, len, b.length);
    while (len > 0) {
      if (pos == block.length) {
        nextBlock();
      }
      int n = Math.min(len, block.length - pos);
      System.arraycopy(b, off, block, pos, n);
      pos += n;
      off += n;
      len -= n;
    }
  }

  /** Bytes written so far. */
  public long size() {
    return filledBytes + pos;
  }

  /**
   * Everything written, in one array of exactly {@link #size} bytes.
   *
   * @throws IllegalStateException when the state is larger than one Java array can hold
   */
  public byte[] toByteArray() {
    long size = size();
    if (size > MAX_ARRAY) {
      throw new IllegalStateException(
          "checkpoint state of " + size + " bytes is larger than one array (" + MAX_ARRAY + ")");
    }
    byte[] out = new byte[(int) size];
    int at = 0;
    for (byte[] b : filled) {
      System.arraycopy(b, 0, out, at, b.length);
      at += b.length;
    }
    System.arraycopy(block, 0, out, at, pos);
    return out;
  }

  private void nextBlock() {
    filled.add(block);
    filledBytes += block.length;
    block = new byte[Math.min(MAX_BLOCK, block.length * 2)];
    pos = 0;
  }
}

package dev.skewer.core.checkpoint;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * What {@link HazelcastCheckpointStore} keeps per id in one map entry, so that checking the fence
 * and writing the checkpoint are one atomic step: the highest epoch handed out ({@code fence}) and
 * the latest checkpoint's encoding — a whole {@link Checkpoint} (version 1) or the {@link
 * CheckpointManifest} of a chunked one (version 3) — if any. Layout: {@code version:u8 (=2)
 * fence:i64 checkpoint-encoding*}. Version 2 tells it apart from a bare checkpoint encoding.
 *
 * @param fence the highest epoch handed out for the id (0: never)
 * @param checkpoint the encoded latest checkpoint or manifest, or null
 */
record FencedSlot(long fence, byte[] checkpoint) {

  private static final byte VERSION = 2;
  private static final int HEADER_BYTES = 1 + 8;
  static final FencedSlot EMPTY = new FencedSlot(0, null);

  byte[] encode() {
    int length = checkpoint == null ? 0 : checkpoint.length;
    ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES + length).put(VERSION).putLong(fence);
    if (checkpoint != null) {
      b.put(checkpoint);
    }
    return b.array();
  }

  /** Decodes an entry's value; null is the empty slot. */
  static FencedSlot decode(byte[] bytes) {
    if (bytes == null) {
      return EMPTY;
    }
    if (bytes.length < HEADER_BYTES || bytes[0] != VERSION) {
      throw new CheckpointFormatException(
          "not a checkpoint slot (version " + (bytes.length == 0 ? "none" : bytes[0]) + ")");
    }
    long fence = ByteBuffer.wrap(bytes, 1, 8).getLong();
    byte[] checkpoint =
        bytes.length == HEADER_BYTES ? null : Arrays.copyOfRange(bytes, HEADER_BYTES, bytes.length);
    return new FencedSlot(fence, checkpoint);
  }

  /** The fence of an encoded slot without copying its checkpoint. */
  static long fenceOf(byte[] bytes) {
    return bytes == null ? 0 : ByteBuffer.wrap(bytes, 1, 8).getLong();
  }

  /**
   * A copy of the manifest in an encoded slot, without copying a whole checkpoint; null when the
   * slot holds no checkpoint or an unchunked one.
   */
  static byte[] manifestOf(byte[] bytes) {
    if (bytes == null
        || bytes.length <= HEADER_BYTES
        || bytes[HEADER_BYTES] != CheckpointManifest.VERSION) {
      return null;
    }
    return Arrays.copyOfRange(bytes, HEADER_BYTES, bytes.length);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FencedSlot s && s.fence == fence && Arrays.equals(s.checkpoint, checkpoint);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(fence) * 31 + Arrays.hashCode(checkpoint);
  }

  @Override
  public String toString() {
    return "FencedSlot[fence="
        + fence
        + ", checkpointBytes="
        + (checkpoint == null ? "none" : checkpoint.length)
        + "]";
  }
}

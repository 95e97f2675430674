package dev.skewer.core.checkpoint;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * The state of one partition at one point of its input.
 *
 * @param epoch the owner's fencing epoch when it was taken
 * @param nextOffset the next input offset to read after restoring {@code state}
 * @param createdMs wall-clock time it was taken (for operators)
 * @param state the owner's encoded state (opaque here)
 */
public record Checkpoint(long epoch, long nextOffset, long createdMs, byte[] state) {

  private static final byte FORMAT_VERSION = 1;
  private static final int HEADER_BYTES = 1 + 8 + 8 + 8 + 4;

  public Checkpoint {
    Objects.requireNonNull(state, "state");
    if (nextOffset < 0) {
      throw new IllegalArgumentException("nextOffset must be >= 0, was " + nextOffset);
    }
  }

  /** {@code version:u8 epoch:i64 nextOffset:i64 createdMs:i64 stateLength:i32 state}. */
  public byte[] encode() {
    ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES + state.length);
    b.put(FORMAT_VERSION)
        .putLong(epoch)
        .putLong(nextOffset)
        .putLong(createdMs)
        .putInt(state.length)
        .put(state);
    return b.array();
  }

  /** Decodes; throws {@link CheckpointFormatException} for anything malformed. */
  public static Checkpoint decode(byte[] bytes) {
    if (bytes == null || bytes.length < HEADER_BYTES) {
      throw new CheckpointFormatException("checkpoint shorter than its header");
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    byte version = b.get();
    if (version != FORMAT_VERSION) {
      throw new CheckpointFormatException("unknown checkpoint format version " + version);
    }
    long epoch = b.getLong();
    long nextOffset = b.getLong();
    long createdMs = b.getLong();
    int length = b.getInt();
    if (length < 0 || length != b.remaining()) {
      throw new CheckpointFormatException(
          "declared state length " + length + " but " + b.remaining() + " bytes remain");
    }
    if (nextOffset < 0) {
      throw new CheckpointFormatException("negative next offset " + nextOffset);
    }
    byte[] state = Arrays.copyOfRange(bytes, HEADER_BYTES, bytes.length);
    return new Checkpoint(epoch, nextOffset, createdMs, state);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Checkpoint c
        && c.epoch == epoch
        && c.nextOffset == nextOffset
        && c.createdMs == createdMs
        && Arrays.equals(c.state, state);
  }

  @Override
  public int hashCode() {
    return Objects.hash(epoch, nextOffset, createdMs) * 31 + Arrays.hashCode(state);
  }

  @Override
  public String toString() {
    return "Checkpoint[epoch="
        + epoch
        + ", nextOffset="
        + nextOffset
        + ", stateBytes="
        + state.length
        + "]";
  }
}

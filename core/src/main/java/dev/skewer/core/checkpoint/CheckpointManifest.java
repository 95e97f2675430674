package dev.skewer.core.checkpoint;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;

/**
 * What stands for a chunked checkpoint where an unchunked one would be (the fenced slot in
 * Hazelcast, the {@code checkpoint/<id>} record of the checkpoint topic): the checkpoint's header,
 * how its state was cut ({@link CheckpointChunks}), a CRC32 of the whole state, and — in the topic
 * — where each chunk's record is. Small: {@value #HEADER_BYTES} bytes plus 12 per chunk position.
 *
 * <p>Layout (big-endian), format version 3 (version 1 is an unchunked {@link Checkpoint}, version 2
 * a {@link FencedSlot}):
 *
 * <pre>
 * | offset | field          | type | meaning                                          |
 * |--------|----------------|------|--------------------------------------------------|
 * | 0      | version        | u8   | 3                                                |
 * | 1      | epoch          | i64  | the checkpoint's epoch                           |
 * | 9      | nextOffset     | i64  | the next input offset, >= 0                      |
 * | 17     | createdMs      | i64  | when it was taken                                |
 * | 25     | stateLength    | i32  | bytes of state, >= 0                             |
 * | 29     | stateCrc32     | i32  | CRC32 of the whole state                         |
 * | 33     | chunkBytes     | i32  | bytes per chunk (the last may be shorter), > 0   |
 * | 37     | chunkCount     | i32  | ceil(stateLength / chunkBytes)                   |
 * | 41     | positionCount  | i32  | 0 (Hazelcast) or chunkCount (topic)              |
 * | 45     | positions      |      | positionCount x (partition:i32, offset:i64)      |
 * </pre>
 *
 * @param epoch the checkpoint's epoch
 * @param nextOffset the next input offset after restoring the state
 * @param createdMs when the checkpoint was taken
 * @param stateLength the state's length
 * @param stateCrc32 CRC32 of the state
 * @param chunkBytes bytes per chunk
 * @param positions where chunk i's record is in the checkpoint topic, for every i; empty when the
 *     chunks are not in the topic (the Hazelcast slot)
 */
public record CheckpointManifest(
    long epoch,
    long nextOffset,
    long createdMs,
    int stateLength,
    int stateCrc32,
    int chunkBytes,
    List<LogPosition> positions) {

  /** The format version byte of a manifest. */
  public static final byte VERSION = 3;

  static final int HEADER_BYTES = 1 + 8 + 8 + 8 + 4 + 4 + 4 + 4 + 4;
  private static final int POSITION_BYTES = 4 + 8;

  public CheckpointManifest {
    if (nextOffset < 0) {
      throw new IllegalArgumentException("nextOffset must be >= 0, was " + nextOffset);
    }
    if (stateLength < 0) {
      throw new IllegalArgumentException("stateLength must be >= 0, was " + stateLength);
    }
    if (chunkBytes <= 0) {
      throw new IllegalArgumentException("chunkBytes must be > 0, was " + chunkBytes);
    }
    positions = List.copyOf(positions);
    int count = chunkCount(stateLength, chunkBytes);
    if (!positions.isEmpty() && positions.size() != count) {
      throw new IllegalArgumentException(
          "positions must be empty or one per chunk (" + count + "), were " + positions.size());
    }
  }

  /**
   * The manifest of {@code checkpoint} cut into chunks of {@code chunkBytes}, without positions.
   */
  public static CheckpointManifest of(Checkpoint checkpoint, int chunkBytes) {
    CRC32 crc = new CRC32();
    crc.update(checkpoint.state());
    return new CheckpointManifest(
        checkpoint.epoch(),
        checkpoint.nextOffset(),
        checkpoint.createdMs(),
        checkpoint.state().length,
        (int) crc.getValue(),
        chunkBytes,
        List.of());
  }

  /** This manifest with the chunks' positions in the checkpoint topic. */
  public CheckpointManifest withPositions(List<LogPosition> chunkPositions) {
    return new CheckpointManifest(
        epoch, nextOffset, createdMs, stateLength, stateCrc32, chunkBytes, chunkPositions);
  }

  /** The number of chunks. */
  public int chunkCount() {
    return chunkCount(stateLength, chunkBytes);
  }

  /** The checkpoint the manifest describes, with {@code state} (checked against it). */
  public Checkpoint checkpoint(byte[] state) {
    if (state.length != stateLength) {
      throw new CheckpointFormatException(
          "the manifest declares " + stateLength + " state bytes, the chunks hold " + state.length);
    }
    return new Checkpoint(epoch, nextOffset, createdMs, state);
  }

  /** The encoding laid out in the class comment. */
  public byte[] encode() {
    ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES + POSITION_BYTES * positions.size());
    b.put(VERSION)
        .putLong(epoch)
        .putLong(nextOffset)
        .putLong(createdMs)
        .putInt(stateLength)
        .putInt(stateCrc32)
        .putInt(chunkBytes)
        .putInt(chunkCount())
        .putInt(positions.size());
    for (LogPosition p : positions) {
      b.putInt(p.partition()).putLong(p.offset());
    }
    return b.array();
  }

  /** Whether {@code bytes} is a manifest's encoding (by its version byte), not a checkpoint's. */
  public static boolean isManifest(byte[] bytes) {
    return bytes != null && bytes.length > 0 && bytes[0] == VERSION;
  }

  /** Decodes; throws {@link CheckpointFormatException} for anything malformed. */
  public static CheckpointManifest decode(byte[] bytes) {
    if (bytes == null || bytes.length < HEADER_BYTES) {
      throw new CheckpointFormatException("checkpoint manifest shorter than its header");
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    byte version = b.get();
    if (version != VERSION) {
      throw new CheckpointFormatException("unknown checkpoint manifest version " + version);
    }
    long epoch = b.getLong();
    long nextOffset = b.getLong();
    long createdMs = b.getLong();
    int stateLength = b.getInt();
    int crc = b.getInt();
    int chunkBytes = b.getInt();
    int chunkCount = b.getInt();
    int positionCount = b.getInt();
    if (nextOffset < 0 || stateLength < 0 || chunkBytes <= 0) {
      throw new CheckpointFormatException(
          "bad checkpoint manifest: nextOffset "
              + nextOffset
              + ", stateLength "
              + stateLength
              + ", chunkBytes "
              + chunkBytes);
    }
    if (chunkCount != chunkCount(stateLength, chunkBytes)) {
      throw new CheckpointFormatException(
          "checkpoint manifest declares "
              + chunkCount
              + " chunks, but "
              + stateLength
              + " bytes in chunks of "
              + chunkBytes
              + " are "
              + chunkCount(stateLength, chunkBytes));
    }
    if ((positionCount != 0 && positionCount != chunkCount)
        || (long) positionCount * POSITION_BYTES != b.remaining()) {
      throw new CheckpointFormatException(
          "checkpoint manifest declares "
              + positionCount
              + " chunk positions for "
              + chunkCount
              + " chunks, and "
              + b.remaining()
              + " bytes remain");
    }
    List<LogPosition> positions = new ArrayList<>(positionCount);
    for (int i = 0; i < positionCount; i++) {
      int partition = b.getInt();
      long offset = b.getLong();
      if (partition < 0 || offset < 0) {
        throw new CheckpointFormatException(
            "checkpoint manifest: chunk "
                + i
                + " at a negative position "
                + partition
                + "@"
                + offset);
      }
      positions.add(new LogPosition(partition, offset));
    }
    return new CheckpointManifest(
        epoch, nextOffset, createdMs, stateLength, crc, chunkBytes, positions);
  }

  private static int chunkCount(int stateLength, int chunkBytes) {
    return (int) ((stateLength + (long) chunkBytes - 1) / chunkBytes);
  }

  @Override
  public String toString() {
    return "CheckpointManifest[epoch="
        + epoch
        + ", nextOffset="
        + nextOffset
        + ", createdMs="
        + createdMs
        + ", stateBytes="
        + stateLength
        + ", chunks="
        + chunkCount()
        + ", positions="
        + positions.size()
        + "]";
  }

  /** How errors name the checkpoint: {@code checkpoint of <id> (epoch <e>, created <ms>)}. */
  String describe(String id) {
    return "checkpoint of " + id + " (epoch " + epoch() + ", created " + createdMs() + ")";
  }
}

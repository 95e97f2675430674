package dev.skewer.core.checkpoint;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The chunks of one chunked checkpoint of one id: how its state is cut ({@code chunkBytes} bytes
 * each, the last one shorter) and the keys its chunks live under. The keys are unique to the
 * checkpoint — an id's {@code (epoch, createdMs)} never repeats, since {@code createdMs} strictly
 * increases per owner and each owner has its own epoch — so a chunk is written once, never
 * overwritten, and deleted only with the checkpoint it belongs to.
 *
 * <ul>
 *   <li>Hazelcast chunk map key: {@code <id>/<epoch>/<createdMs>/<i>}
 *   <li>checkpoint topic record key: {@code chunk/<id>/<epoch>/<createdMs>/<i>}
 * </ul>
 *
 * @param id the checkpoint's id, e.g. {@code node/events/3}
 * @param epoch the checkpoint's epoch
 * @param createdMs the checkpoint's creation time
 * @param stateLength the length of the whole state, >= 0
 * @param chunkBytes the length of every chunk but the last, > 0
 */
public record CheckpointChunks(
    String id, long epoch, long createdMs, int stateLength, int chunkBytes) {

  /** Key prefix of chunk records in the checkpoint topic. */
  public static final String RECORD_PREFIX = "chunk/";

  public CheckpointChunks {
    if (id == null || id.isEmpty()) {
      throw new IllegalArgumentException("id must be non-empty, was " + id);
    }
    if (stateLength < 0) {
      throw new IllegalArgumentException("stateLength must be >= 0, was " + stateLength);
    }
    if (chunkBytes <= 0) {
      throw new IllegalArgumentException("chunkBytes must be > 0, was " + chunkBytes);
    }
  }

  /** The chunks of {@code manifest}'s checkpoint of {@code id}. */
  public static CheckpointChunks of(String id, CheckpointManifest manifest) {
    return new CheckpointChunks(
        id, manifest.epoch(), manifest.createdMs(), manifest.stateLength(), manifest.chunkBytes());
  }

  /** The number of chunks: {@code ceil(stateLength / chunkBytes)}. */
  public int count() {
    return (int) ((stateLength + (long) chunkBytes - 1) / chunkBytes);
  }

  /** The length of chunk {@code i}. */
  public int length(int i) {
    checkIndex(i);
    return (int) Math.min(chunkBytes, stateLength - (long) i * chunkBytes);
  }

  /** Where chunk {@code i} starts in the state. */
  public int start(int i) {
    checkIndex(i);
    return i * chunkBytes;
  }

  /** A copy of chunk {@code i} of {@code state} (a chunk-sized allocation, not the whole state). */
  public byte[] slice(byte[] state, int i) {
    if (state.length != stateLength) {
      throw new IllegalArgumentException(
          "state has " + state.length + " bytes, the chunks cut " + stateLength);
    }
    return Arrays.copyOfRange(state, start(i), start(i) + length(i));
  }

  /** The key of chunk {@code i} in the Hazelcast chunk map. */
  public String mapKey(int i) {
    checkIndex(i);
    return id + "/" + epoch + "/" + createdMs + "/" + i;
  }

  /** The key of chunk {@code i}'s record in the checkpoint topic. */
  public byte[] recordKey(int i) {
    return (RECORD_PREFIX + mapKey(i)).getBytes(StandardCharsets.UTF_8);
  }

  /** Whether {@code other} is the same checkpoint's chunks (then they share every key). */
  public boolean sameCheckpoint(CheckpointChunks other) {
    return other != null
        && other.id.equals(id)
        && other.epoch == epoch
        && other.createdMs == createdMs;
  }

  private void checkIndex(int i) {
    if (i < 0 || i >= count()) {
      throw new IndexOutOfBoundsException("chunk " + i + " of " + count());
    }
  }
}

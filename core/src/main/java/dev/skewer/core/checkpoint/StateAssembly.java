package dev.skewer.core.checkpoint;

import java.util.zip.CRC32;

/**
 * Puts a chunked checkpoint's state back together from its chunks, in order, checking each chunk's
 * length as it comes and the whole state's length and CRC32 against the manifest at the end. One
 * allocation of the state's size; chunks are copied into it, never concatenated.
 *
 * <p>Not thread-safe.
 */
final class StateAssembly {

  private final String id;
  private final CheckpointManifest manifest;
  private final CheckpointChunks chunks;
  private final byte[] state;
  private final CRC32 crc = new CRC32();
  private int next;

  StateAssembly(String id, CheckpointManifest manifest) {
    this.id = id;
    this.manifest = manifest;
    this.chunks = CheckpointChunks.of(id, manifest);
    this.state = new byte[manifest.stateLength()];
  }

  /**
   * Chunk {@link #nextIndex()}; throws {@link CheckpointFormatException} if its length is wrong.
   */
  void add(byte[] chunk) {
    int i = next;
    if (i >= chunks.count()) {
      throw new CheckpointFormatException(
          "checkpoint of " + id + ": more than the manifest's " + chunks.count() + " chunks");
    }
    if (chunk.length != chunks.length(i)) {
      throw new CheckpointFormatException(
          "checkpoint of "
              + id
              + ": chunk "
              + i
              + " ("
              + chunks.mapKey(i)
              + ") has "
              + chunk.length
              + " bytes, the manifest expects "
              + chunks.length(i));
    }
    System.arraycopy(chunk, 0, state, chunks.start(i), chunk.length);
    crc.update(chunk);
    next++;
  }

  /** The index of the chunk {@link #add} expects next. */
  int nextIndex() {
    return next;
  }

  /** The checkpoint, once every chunk is in and the CRC matches. */
  Checkpoint checkpoint() {
    if (next != chunks.count()) {
      throw new CheckpointFormatException(
          "checkpoint of " + id + ": " + next + " of " + chunks.count() + " chunks");
    }
    verify(id, manifest, crc);
    return manifest.checkpoint(state);
  }

  /**
   * Throws {@link CheckpointFormatException} unless {@code crc} of the chunks is the manifest's.
   */
  static void verify(String id, CheckpointManifest manifest, CRC32 crc) {
    if ((int) crc.getValue() != manifest.stateCrc32()) {
      throw new CheckpointFormatException(
          manifest.describe(id)
              + ": its chunks' CRC32 "
              + Integer.toHexString((int) crc.getValue())
              + " is not the manifest's "
              + Integer.toHexString(manifest.stateCrc32()));
    }
  }
}

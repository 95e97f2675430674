package dev.skewer.core.hotkey;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Records of the compacted hot-key topic ({@code skewer.hotkeys}): one record per hot key, the
 * record key the bare key in UTF-8, the value the layout of {@code package-info.java} (version
 * byte, fanout, since); a key that returns to fanout 1 gets a tombstone (null value).
 *
 * <p>{@link #decode} throws only {@link HotKeyCodecException}, for any input.
 */
public final class HotKeyCodec {

  /** Version byte of the value layout. */
  public static final byte VERSION = 1;

  /** Length of an encoded value. */
  public static final int VALUE_BYTES = 13;

  private HotKeyCodec() {}

  /** The record key: the bare key in UTF-8. */
  public static byte[] encodeKey(String key) {
    if (key == null || key.isEmpty()) {
      throw new IllegalArgumentException("key must not be null or empty: '" + key + "'");
    }
    return key.getBytes(StandardCharsets.UTF_8);
  }

  /** The record value of {@code hotKey}. */
  public static byte[] encodeValue(HotKey hotKey) {
    return ByteBuffer.allocate(VALUE_BYTES)
        .put(VERSION)
        .putInt(hotKey.fanout())
        .putLong(hotKey.sinceMs())
        .array();
  }

  /**
   * The bare key of a record.
   *
   * @throws HotKeyCodecException when the key is null, empty or not UTF-8
   */
  public static String decodeKey(byte[] key) {
    if (key == null || key.length == 0) {
      throw new HotKeyCodecException("hot-key record key must not be null or empty");
    }
    try {
      CharBuffer chars =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(key));
      return chars.toString();
    } catch (CharacterCodingException e) {
      throw new HotKeyCodecException(
          "hot-key record key is not valid UTF-8 (" + key.length + " bytes)");
    }
  }

  /**
   * The entry a record carries, or {@code null} for a tombstone (null value).
   *
   * @throws HotKeyCodecException when the key is null, empty or not UTF-8, or the value is not a
   *     valid version-1 value
   */
  public static HotKey decode(byte[] key, byte[] value) {
    String k = decodeKey(key);
    if (value == null) {
      return null;
    }
    if (value.length != VALUE_BYTES) {
      throw new HotKeyCodecException(
          "hot-key value for key '"
              + k
              + "' must be "
              + VALUE_BYTES
              + " bytes, was "
              + value.length);
    }
    ByteBuffer b = ByteBuffer.wrap(value);
    byte version = b.get();
    if (version != VERSION) {
      throw new HotKeyCodecException(
          "hot-key value for key '" + k + "' has unknown version " + version);
    }
    int fanout = b.getInt();
    long sinceMs = b.getLong();
    try {
      return new HotKey(k, fanout, sinceMs);
    } catch (IllegalArgumentException e) {
      throw new HotKeyCodecException(e.getMessage());
    }
  }
}

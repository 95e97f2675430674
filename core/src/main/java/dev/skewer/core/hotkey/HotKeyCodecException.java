package dev.skewer.core.hotkey;

/** The one exception {@link HotKeyCodec} throws: the bytes are not a hot-key record. */
public final class HotKeyCodecException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public HotKeyCodecException(String message) {
    super(message);
  }
}

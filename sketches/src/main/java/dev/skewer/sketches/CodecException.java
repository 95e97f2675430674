package dev.skewer.sketches;

/** The one exception the codec lets escape when decoding malformed bytes. */
public final class CodecException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CodecException(String message) {
    super(message);
  }

  public CodecException(String message, Throwable cause) {
    super(message, cause);
  }
}

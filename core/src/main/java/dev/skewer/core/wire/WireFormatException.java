package dev.skewer.core.wire;

/** The one exception {@link WireCodec#decode} lets escape on malformed bytes. */
public final class WireFormatException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public WireFormatException(String message) {
    super(message);
  }

  public WireFormatException(String message, Throwable cause) {
    super(message, cause);
  }
}

package dev.skewer.core.checkpoint;

/** A checkpoint (or the state inside it) that cannot be decoded. */
public final class CheckpointFormatException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CheckpointFormatException(String message) {
    super(message);
  }

  public CheckpointFormatException(String message, Throwable cause) {
    super(message, cause);
  }
}

package dev.skewer.coordinator.query;

/** Nothing to answer (yet): the API turns it into a 404 with the message. */
public final class NotFound extends RuntimeException {
  public NotFound(String message) {
    super(message);
  }
}

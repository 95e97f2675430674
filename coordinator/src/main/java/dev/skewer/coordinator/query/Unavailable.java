package dev.skewer.coordinator.query;

/**
 * This coordinator cannot answer the query correctly yet (its view is still reading the results
 * topic): the API turns it into a 503 with the message, so a client retries or asks another
 * coordinator instead of reading an incomplete answer.
 */
public final class Unavailable extends RuntimeException {
  public Unavailable(String message) {
    super(message);
  }
}

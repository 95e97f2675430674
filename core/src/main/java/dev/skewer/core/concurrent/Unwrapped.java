package dev.skewer.core.concurrent;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** The error behind a future's failure, as the work that failed threw it. */
public final class Unwrapped {

  private Unwrapped() {}

  /**
   * {@code t} without the {@link CompletionException}s and {@link ExecutionException}s futures wrap
   * it in; a checked cause comes wrapped in an {@link IllegalStateException}.
   */
  public static RuntimeException cause(Throwable t) {
    Throwable cause = t;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause instanceof RuntimeException r ? r : new IllegalStateException(cause);
  }
}

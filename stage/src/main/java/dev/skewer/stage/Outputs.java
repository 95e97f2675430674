package dev.skewer.stage;

import io.vertx.core.Future;
import java.time.Duration;

/**
 * What the runtime needs of its sender, whichever the guarantee: {@link OrderedSender} (one
 * idempotent producer, {@code at_least_once}) or {@link TransactionalSender} (one transactional
 * producer per owned partition, {@code exactly_once}).
 */
interface Outputs {

  /** Hands what tasks emitted since the last call to the producer(s); event loop only. */
  void dispatch();

  /** Records emitted and not yet acknowledged (the back-pressure measure). Thread-safe. */
  long pending();

  /** Records that could not be sent, ever. Thread-safe. */
  long failures();

  /** Records that could not be sent since one was last acknowledged (readiness). Thread-safe. */
  long failuresSinceSuccess();

  /** Sends what is left and closes the producer(s); event loop only. */
  Future<Void> close(Duration timeout);
}

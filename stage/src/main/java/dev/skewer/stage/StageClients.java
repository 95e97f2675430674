package dev.skewer.stage;

import java.time.Duration;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;

/**
 * Makes the Kafka clients a {@link PartitionRuntime} uses, so tests can hand it Kafka's {@code
 * MockConsumer} and {@code MockProducer}. The consumer is used by the runtime's poll thread only;
 * the runtime subscribes it, commits its offsets and closes it. With {@code at_least_once} one
 * producer is shared by every task of the runtime; with {@code exactly_once} each owned partition
 * gets a transactional producer of its own. The runtime closes them all.
 */
public interface StageClients {

  /** A consumer in the stage's group, not yet subscribed, auto-commit off. */
  Consumer<byte[], byte[]> consumer();

  /** A producer for the stage's outputs (idempotent). */
  Producer<byte[], byte[]> producer();

  /**
   * A transactional producer for one partition's outputs and checkpoints ({@code exactly_once}),
   * not yet initialised: the runtime calls {@code initTransactions()}, which fences every earlier
   * producer of the same id. Large enough for checkpoint records.
   */
  default Producer<byte[], byte[]> transactionalProducer(
      String transactionalId, Duration transactionTimeout) {
    throw new UnsupportedOperationException(
        getClass().getName() + " makes no transactional producers: exactly_once needs them");
  }
}

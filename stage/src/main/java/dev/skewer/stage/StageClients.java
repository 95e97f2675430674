package dev.skewer.stage;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;

/**
 * Makes the Kafka clients a {@link PartitionRuntime} uses, so tests can hand it Kafka's {@code
 * MockConsumer} and {@code MockProducer}. The consumer is used by the runtime's poll thread only;
 * the runtime subscribes it, commits its offsets and closes it. The producer is shared by every
 * task of the runtime and closed by it.
 */
public interface StageClients {

  /** A consumer in the stage's group, not yet subscribed, auto-commit off. */
  Consumer<byte[], byte[]> consumer();

  /** A producer for the stage's outputs (idempotent). */
  Producer<byte[], byte[]> producer();
}

package dev.skewer.stage;

import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Where a {@link PartitionTask} puts what it produces. Records leave in the order they are given,
 * after the current call returns; a record whose send fails makes the runtime rewind the task to
 * its last checkpoint (a checkpoint never covers a record that was not acknowledged).
 */
@FunctionalInterface
public interface TaskOutput {

  void send(ProducerRecord<byte[], byte[]> record);

  /**
   * Sends {@code record} and, once the broker has acknowledged it, tells {@code acknowledged} where
   * it was written. An output that cannot tell (a test's) sends it without telling; a record that
   * fails is not told either. Under {@code exactly_once} the record is acknowledged before its
   * transaction commits and may still be aborted.
   */
  default void send(ProducerRecord<byte[], byte[]> record, Acknowledged acknowledged) {
    send(record);
  }

  /** Where an acknowledged record was written. */
  @FunctionalInterface
  interface Acknowledged {
    /** Called on the producer's I/O thread: must be thread-safe and quick. */
    void at(int partition, long offset);
  }
}

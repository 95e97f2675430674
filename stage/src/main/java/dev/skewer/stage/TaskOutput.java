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
}

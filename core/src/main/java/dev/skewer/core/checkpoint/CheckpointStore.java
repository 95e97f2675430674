package dev.skewer.core.checkpoint;

import java.util.Optional;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Where partition owners keep checkpoints and fencing epochs. Ids name a partition of a stage, e.g.
 * {@code node/events/3} or {@code coordinator/skewer.partials/1}. Every method may block: call them
 * off the event loop. Thread-safe.
 *
 * <p>Fencing contract: {@link #save} and {@link #cache} are refused once {@link #nextEpoch} has
 * returned an epoch above the checkpoint's, and the check and the write are one atomic step — a
 * zombie's save that races its successor's {@code nextEpoch} either lands before it (and is seen by
 * the successor's {@link #load}) or is refused.
 *
 * <p>Owners of {@code exactly_once} jobs write their checkpoints into Kafka themselves, inside the
 * transaction that commits the outputs the checkpoint covers ({@link #writeTransactional}), read
 * them back from there when the store is behind ({@link #read}), and keep the store as a fast copy
 * ({@link #cache}).
 */
public interface CheckpointStore extends AutoCloseable {

  /**
   * Increments and returns the fencing epoch of {@code id} (the first call returns 1), once the
   * store's durable copy has it (see {@link #takeEpoch}).
   */
  long nextEpoch(String id);

  /**
   * Increments the fencing epoch of {@code id} like {@link #nextEpoch}, without waiting for the
   * store's durable copy of it (a record in Kafka): the store fences with the epoch when this
   * returns, and {@link TakenEpoch#recorded} tells when the copy is written. A take-over restores
   * its state meanwhile and waits for it before it acts. By default {@link #nextEpoch}.
   */
  default TakenEpoch takeEpoch(String id) {
    return TakenEpoch.recorded(nextEpoch(id));
  }

  /** The current fencing epoch of {@code id} (0 if never taken). */
  long currentEpoch(String id);

  /** The latest checkpoint of {@code id}, if any. */
  Optional<Checkpoint> load(String id);

  /**
   * Stores a checkpoint unless a newer owner has taken the partition (its epoch is above {@code
   * checkpoint.epoch()}): a paused-then-resumed zombie never overwrites its successor's state.
   *
   * @return whether it was stored (refused as stale otherwise) and, for a store that keeps a copy
   *     in Kafka, where that copy was written
   */
  Saved save(String id, Checkpoint checkpoint);

  /**
   * Stores a checkpoint that is already durable in Kafka (committed in a transaction together with
   * its records, {@link #writeTransactional}), fenced like {@link #save} but without writing it to
   * Kafka again.
   *
   * @return false if refused as stale
   */
  default boolean cache(String id, Checkpoint checkpoint) {
    return save(id, checkpoint).accepted();
  }

  /**
   * Writes the store's copy of {@code checkpoint} in Kafka through an {@code exactly_once} owner's
   * transactional producer, inside its open transaction — every record the copy takes (a large
   * checkpoint is several), made visible atomically with the outputs and the input offset it covers
   * — and waits until they are written (not committed).
   *
   * @return where the record that {@link #read} starts from was written, to name it in the
   *     committed offset's metadata; empty when the store keeps no copy in Kafka
   * @throws org.apache.kafka.common.KafkaException when a record cannot be written (its cause is
   *     the producer's, e.g. a fenced producer)
   */
  default Optional<RecordMetadata> writeTransactional(
      String id, Checkpoint checkpoint, Producer<byte[], byte[]> transactionalProducer) {
    return Optional.empty();
  }

  /**
   * The checkpoint of {@code id} written at {@code offset} of {@code partition} of the store's
   * topic — by a committed transaction (see {@link #writeTransactional}) or by {@link #save} (see
   * {@link Saved}); empty when there is none there (aborted, compacted away, another id, or no
   * topic).
   *
   * @throws CheckpointFormatException when the record there cannot be decoded
   */
  default Optional<Checkpoint> read(String id, int partition, long offset) {
    return Optional.empty();
  }

  /**
   * Whether what this store holds outlives the process (shared members, a copy in Kafka): then a
   * store that knows less than the consumer group committed is behind (cut off from its cluster)
   * rather than empty by design. False for a store in one process's memory.
   */
  default boolean outlivesProcesses() {
    return false;
  }

  /**
   * The largest record this store writes through a producer it is given ({@link
   * #writeTransactional}), so that producer can be sized for it; 0 when it writes none.
   */
  default int maxRecordBytes() {
    return 0;
  }

  @Override
  default void close() {}
}

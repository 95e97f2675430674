package dev.skewer.stage;

import dev.skewer.core.checkpoint.Checkpoint;
import java.util.Optional;

/** Builds the {@link PartitionTask} of a partition the runtime takes over. */
@FunctionalInterface
public interface TaskFactory<T extends PartitionTask> {

  /**
   * Builds the task of {@code partition}, owned from now on under {@code epoch} (a fencing token
   * the task writes into what it emits), from the partition's last checkpoint, or from scratch when
   * there is none. Runs on a worker thread and may block (e.g. to scan what a previous owner wrote
   * after the checkpoint). A failure leaves the partition unowned; the runtime retries with a
   * growing delay while the partition stays assigned.
   */
  T restore(int partition, long epoch, Optional<Checkpoint> checkpoint) throws Exception;
}

package dev.skewer.coordinator.stream;

import dev.skewer.coordinator.merge.WindowMerger;
import dev.skewer.core.checkpoint.Checkpoint;
import dev.skewer.core.job.JobSpec;
import dev.skewer.model.MemoryBroker;
import dev.skewer.stage.LandedRecords;
import dev.skewer.stage.PartitionTask;
import dev.skewer.stage.TaskFactory;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Optional;
import org.apache.kafka.common.utils.Utils;

/**
 * The coordinator's real task factory ({@link MergeTasks}, {@link ResultWriter}) for the model
 * test, with the results a previous owner wrote read from the {@link MemoryBroker} instead of a
 * Kafka consumer. Lives in the coordinator's package because the factory and its tasks are
 * package-private; it only forwards.
 */
public final class ModelMergeTasks implements TaskFactory<PartitionTask> {

  private final MergeTasks tasks;

  public ModelMergeTasks(
      JobSpec job,
      int sourcePartitions,
      MeterRegistry registry,
      String id,
      Clock clock,
      MemoryBroker broker) {
    // the late events the query side has read per window go only into the provenance, which the
    // model compares nothing by
    ResultWriter results = new ResultWriter(job, registry, id, windowStartMs -> 0);
    this.tasks =
        new MergeTasks(
            job,
            sourcePartitions,
            results,
            registry,
            id,
            clock,
            (partition, sinceMs) -> writtenResults(broker, job, partition, sinceMs));
  }

  @Override
  public PartitionTask restore(int partition, long epoch, Optional<Checkpoint> checkpoint) {
    return tasks.restore(partition, epoch, checkpoint);
  }

  /**
   * What a result says: its JSON without the revision number and the provenance (as a replay
   * compares it with what was written before).
   */
  public static String content(String json) {
    return WrittenResults.content(json);
  }

  /** A coordinator task's merger. */
  public static WindowMerger merger(PartitionTask task) {
    return ((PartialsPartitionTask) task).merger();
  }

  /**
   * {@link WrittenResults#scan} over the memory broker: the results written since {@code sinceMs -
   * MARGIN} whose bare key belongs to partials partition {@code q}, the highest revision per key.
   */
  private static WrittenResults writtenResults(
      MemoryBroker broker, JobSpec job, int q, long sinceMs) {
    WrittenResults written = WrittenResults.none();
    int partialsPartitions = job.topics().partialsPartitions();
    long startMs = Math.max(0, sinceMs - LandedRecords.MARGIN.toMillis());
    for (MemoryBroker.Stored r : broker.since(job.topics().results(), startMs)) {
      if (r.key() == null || r.value() == null) {
        continue;
      }
      String resultKey = new String(r.key(), StandardCharsets.UTF_8);
      int at = resultKey.lastIndexOf('@');
      if (at < 0) {
        continue;
      }
      byte[] bare = resultKey.substring(0, at).getBytes(StandardCharsets.UTF_8);
      if (Utils.toPositive(Utils.murmur2(bare)) % partialsPartitions != q) {
        continue;
      }
      String json = new String(r.value(), StandardCharsets.UTF_8);
      int revision = WrittenResults.revisionOf(json);
      WrittenResults.Written held = written.get(resultKey);
      if (held == null || revision >= held.revision()) {
        written.put(resultKey, revision, WrittenResults.content(json));
      }
    }
    return written;
  }
}

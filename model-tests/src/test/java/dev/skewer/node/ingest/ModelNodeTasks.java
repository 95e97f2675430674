package dev.skewer.node.ingest;

import dev.skewer.core.checkpoint.Checkpoint;
import dev.skewer.core.job.JobSpec;
import dev.skewer.model.MemoryBroker;
import dev.skewer.node.aggregate.PartitionAggregator;
import dev.skewer.stage.LandedRecords;
import dev.skewer.stage.PartitionTask;
import dev.skewer.stage.TaskFactory;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.header.Header;

/**
 * The node's real task factory ({@link SourceTasks}) for the model test, with the side topics read
 * from the {@link MemoryBroker} instead of a Kafka consumer, and the coordinators' frontier and the
 * side records' size limit set by the test (as {@code NodeVerticle} sets them from Hazelcast and
 * the topics' configuration). Lives in the node's package because the factory and its tasks are
 * package-private; it only forwards.
 */
public final class ModelNodeTasks implements TaskFactory<PartitionTask> {

  private final SourceTasks tasks;

  public ModelNodeTasks(
      JobSpec job,
      int partialsPartitions,
      MeterRegistry registry,
      String nodeId,
      Clock clock,
      MemoryBroker broker,
      int sideRecordLimitBytes) {
    this.tasks =
        new SourceTasks(
            job,
            partialsPartitions,
            registry,
            nodeId,
            clock,
            (partition, fromOffset, sinceMs) ->
                routedOffsets(broker, job, partition, fromOffset, sinceMs));
    // what NodeVerticle reads from the side topics' and the producer's configuration
    tasks.sideOutputs().limits(sideRecordLimitBytes, sideRecordLimitBytes);
  }

  @Override
  public PartitionTask restore(int partition, long epoch, Optional<Checkpoint> checkpoint) {
    return tasks.restore(partition, epoch, checkpoint);
  }

  /** What the node's frontier reader does: tasks adopt it on their next tick. */
  public void frontierMs(long frontierMs) {
    tasks.frontierMs(frontierMs);
  }

  /** Whether a node task has marked its partition idle. */
  public static boolean idle(PartitionTask task) {
    return ((SourcePartitionTask) task).idle();
  }

  /** Whether a node task has finalized its partition ({@code finalizeAfterIdle}: end of input). */
  public static boolean finalized(PartitionTask task) {
    return ((SourcePartitionTask) task).finalized();
  }

  /** A node task's aggregator (for diagnostics). */
  public static PartitionAggregator aggregator(PartitionTask task) {
    return ((SourcePartitionTask) task).aggregator();
  }

  /**
   * {@link SideOutputScanner#routedOffsets} over the memory broker: the side records written since
   * {@code sinceMs - MARGIN} whose source headers name this events partition at or after {@code
   * fromOffset}.
   */
  private static Set<Long> routedOffsets(
      MemoryBroker broker, JobSpec job, int partition, long fromOffset, long sinceMs) {
    Set<Long> offsets = new HashSet<>();
    long startMs = Math.max(0, sinceMs - LandedRecords.MARGIN.toMillis());
    String partitionText = Integer.toString(partition);
    for (String topic : new String[] {job.topics().late(), job.topics().dlq()}) {
      for (MemoryBroker.Stored r : broker.since(topic, startMs)) {
        String sourceTopic = header(r, SideOutputs.SOURCE_TOPIC_HEADER);
        String sourcePartition = header(r, SideOutputs.SOURCE_PARTITION_HEADER);
        String sourceOffset = header(r, SideOutputs.SOURCE_OFFSET_HEADER);
        if (job.topics().events().equals(sourceTopic)
            && partitionText.equals(sourcePartition)
            && sourceOffset != null) {
          long o = Long.parseLong(sourceOffset);
          if (o >= fromOffset) {
            offsets.add(o);
          }
        }
      }
    }
    return offsets;
  }

  private static String header(MemoryBroker.Stored r, String name) {
    Header h = r.headers() == null ? null : r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }
}

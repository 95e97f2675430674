package dev.skewer.reconcile;

import static org.awaitility.Awaitility.await;

import dev.skewer.coordinator.CoordinatorRuntime;
import dev.skewer.coordinator.CoordinatorSettings;
import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.checkpoint.InMemoryCheckpointStore;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.node.NodeRuntime;
import dev.skewer.node.NodeSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The real stream for a test: {@code nodes} nodes and one coordinator in this JVM (their own Vert.x
 * instances, the real ingest and merge verticles), sharing one in-memory checkpoint store instead
 * of Hazelcast; waits until every input and partials partition is owned.
 */
final class StreamCluster implements AutoCloseable {

  private final List<NodeRuntime> nodes = new ArrayList<>();
  private CoordinatorRuntime coordinator;

  static StreamCluster start(JobSpec job, KafkaSettings kafka, int nodeCount) throws Exception {
    StreamCluster c = new StreamCluster();
    CheckpointStore store = new InMemoryCheckpointStore();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try {
      c.coordinator =
          CoordinatorRuntime.start(
              CoordinatorSettings.of("coordinator-1", job, kafka, 0),
              null,
              registry,
              Clock.systemUTC(),
              store);
      for (int i = 1; i <= nodeCount; i++) {
        c.nodes.add(
            NodeRuntime.start(
                NodeSettings.of("node-" + i, job, kafka),
                registry,
                Clock.systemUTC(),
                store,
                null));
      }
      int sources = job.topics().eventsPartitions();
      int partials = job.topics().partialsPartitions();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  c.nodes.stream().mapToInt(n -> n.ownedPartitions().size()).sum() == sources
                      && c.coordinator.ownedPartitions().size() == partials);
      return c;
    } catch (Exception e) {
      c.close();
      throw e;
    }
  }

  long sendFailures() {
    return nodes.stream().mapToLong(NodeRuntime::sendFailures).sum()
        + (coordinator == null ? 0 : coordinator.sendFailures());
  }

  @Override
  public void close() {
    nodes.forEach(NodeRuntime::close);
    if (coordinator != null) {
      coordinator.close();
    }
  }
}

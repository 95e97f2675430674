package dev.skewer.launcher.local;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.coordinator.CoordinatorRuntime;
import dev.skewer.coordinator.CoordinatorSettings;
import dev.skewer.coordinator.hotkey.HotKeySettings;
import dev.skewer.coordinator.query.QuerySettings;
import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.checkpoint.HazelcastCheckpointStore;
import dev.skewer.core.checkpoint.InMemoryCheckpointStore;
import dev.skewer.core.cluster.ClusterSettings;
import dev.skewer.core.cluster.HazelcastMembers;
import dev.skewer.core.frontier.Frontier;
import dev.skewer.core.frontier.HazelcastFrontier;
import dev.skewer.core.frontier.InMemoryFrontier;
import dev.skewer.core.job.JobNames;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.node.NodeRuntime;
import dev.skewer.node.NodeSettings;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts {@code nodes} nodes and {@code coordinators} coordinators in this JVM, each with its own
 * Vert.x instance and (when asked) its own Hazelcast member, all joining one cluster on loopback.
 * {@link #close} stops coordinators last so in-flight Partials are still merged.
 */
public final class LocalCluster implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(LocalCluster.class);
  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

  private final List<NodeRuntime> nodes = new ArrayList<>();
  private final List<CoordinatorRuntime> coordinators = new ArrayList<>();
  private final List<HazelcastInstance> members = new ArrayList<>();
  private final List<CheckpointStore> stores = new ArrayList<>();
  private final CheckpointStore sharedStore = new InMemoryCheckpointStore();
  private final Frontier sharedFrontier = new InMemoryFrontier();
  private final JobNames names;

  private LocalCluster(JobNames names) {
    this.names = names;
  }

  /**
   * Starts the processes.
   *
   * @param hazelcast whether each process runs a Hazelcast member (on free loopback ports)
   * @param httpPort the first coordinator's HTTP port (0 = any); later ones take any free port
   */
  public static LocalCluster start(
      JobSpec job,
      KafkaSettings kafka,
      int nodeCount,
      int coordinatorCount,
      boolean hazelcast,
      int httpPort,
      MeterRegistry registry,
      Clock clock)
      throws Exception {
    return start(
        job,
        kafka,
        nodeCount,
        coordinatorCount,
        hazelcast,
        httpPort,
        registry,
        clock,
        HotKeySettings.defaults());
  }

  /** As above, with the coordinators' hot-key settings. */
  public static LocalCluster start(
      JobSpec job,
      KafkaSettings kafka,
      int nodeCount,
      int coordinatorCount,
      boolean hazelcast,
      int httpPort,
      MeterRegistry registry,
      Clock clock,
      HotKeySettings hotKeys)
      throws Exception {
    LocalCluster cluster = new LocalCluster(JobNames.of(job));
    try {
      List<Integer> ports = new ArrayList<>();
      List<String> memberList = new ArrayList<>();
      int total = nodeCount + coordinatorCount;
      if (hazelcast) {
        for (int i = 0; i < total; i++) {
          int port = freeLoopbackPort();
          ports.add(port);
          memberList.add("127.0.0.1:" + port);
        }
      }
      int memberIndex = 0;
      for (int i = 1; i <= coordinatorCount; i++) {
        String id = "coordinator-" + i;
        HazelcastInstance hz = cluster.member(ports, memberIndex++, memberList, id, "coordinator");
        cluster.coordinators.add(
            CoordinatorRuntime.start(
                CoordinatorSettings.of(id, job, kafka, i == 1 ? httpPort : 0).withHotKeys(hotKeys),
                QuerySettings.defaults(),
                hz,
                registry,
                clock,
                cluster.store(hz, kafka),
                cluster.frontier(hz)));
      }
      for (int i = 1; i <= nodeCount; i++) {
        String id = "node-" + i;
        HazelcastInstance hz = cluster.member(ports, memberIndex++, memberList, id, "node");
        cluster.nodes.add(
            NodeRuntime.start(
                NodeSettings.of(id, job, kafka),
                registry,
                clock,
                cluster.store(hz, kafka),
                hz,
                cluster.frontier(hz)));
      }
      return cluster;
    } catch (Exception e) {
      cluster.close();
      throw e;
    }
  }

  /** A loopback port that was free a moment ago and that this JVM has not handed out before. */
  private static int freeLoopbackPort() {
    for (int attempt = 0; attempt < 100; attempt++) {
      int port;
      try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        port = socket.getLocalPort();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot open a loopback server socket", e);
      }
      if (HANDED_OUT.add(port)) {
        return port;
      }
    }
    throw new IllegalStateException("no fresh free loopback port after 100 attempts");
  }

  private HazelcastInstance member(
      List<Integer> ports, int index, List<String> memberList, String name, String role) {
    if (ports.isEmpty()) {
      return null;
    }
    HazelcastInstance hz =
        HazelcastMembers.start(
            ClusterSettings.loopback(names.hazelcastClusterName(), ports.get(index), memberList),
            name,
            role,
            names.jobName());
    members.add(hz);
    return hz;
  }

  /** Hazelcast-backed (mirrored to Kafka) with a member, else one store shared in this JVM. */
  private CheckpointStore store(HazelcastInstance hz, KafkaSettings kafka) {
    if (hz == null) {
      return sharedStore;
    }
    CheckpointStore store =
        HazelcastCheckpointStore.create(hz, kafka, names, names.checkpointsTopic(), true);
    stores.add(store);
    return store;
  }

  /** The coordinators' frontier: in Hazelcast with a member, else shared in this JVM. */
  private Frontier frontier(HazelcastInstance hz) {
    return hz == null ? sharedFrontier : HazelcastFrontier.forJob(hz, names);
  }

  public List<NodeRuntime> nodes() {
    return nodes;
  }

  public List<CoordinatorRuntime> coordinators() {
    return coordinators;
  }

  /** The first coordinator's HTTP port. */
  public int httpPort() {
    return coordinators.get(0).httpPort();
  }

  /** Source partitions owned by some node right now. */
  public Set<Integer> ownedSourcePartitions() {
    Set<Integer> all = new HashSet<>();
    nodes.forEach(n -> all.addAll(n.ownedPartitions()));
    return all;
  }

  /** Partials partitions owned by some coordinator right now. */
  public Set<Integer> ownedPartialsPartitions() {
    Set<Integer> all = new HashSet<>();
    coordinators.forEach(c -> all.addAll(c.ownedPartitions()));
    return all;
  }

  /** Whether every node owns at least one partition and all source partitions are owned. */
  public boolean assignmentsSettled(int sourcePartitions, int partialsPartitions) {
    boolean eachNodeBusy =
        nodes.stream().allMatch(n -> !n.ownedPartitions().isEmpty())
            || nodes.size() > sourcePartitions;
    int ownedSources = nodes.stream().mapToInt(n -> n.ownedPartitions().size()).sum();
    int ownedPartials = coordinators.stream().mapToInt(c -> c.ownedPartitions().size()).sum();
    return eachNodeBusy && ownedSources == sourcePartitions && ownedPartials == partialsPartitions;
  }

  /** Produce failures over every process (should be 0). */
  public long sendFailures() {
    return nodes.stream().mapToLong(NodeRuntime::sendFailures).sum()
        + coordinators.stream().mapToLong(CoordinatorRuntime::sendFailures).sum();
  }

  @Override
  public void close() {
    for (NodeRuntime n : nodes) {
      n.close();
    }
    for (CoordinatorRuntime c : coordinators) {
      c.close();
    }
    for (CheckpointStore store : stores) {
      store.close();
    }
    if (!members.isEmpty()) {
      try {
        // every member is ours: one orderly cluster-wide shutdown instead of members
        // suspecting each other as they leave one by one
        members.get(0).getCluster().shutdown();
      } catch (RuntimeException e) {
        LOG.warn("Hazelcast cluster did not shut down cleanly", e);
        members.forEach(HazelcastInstance::shutdown);
      }
    }
  }
}

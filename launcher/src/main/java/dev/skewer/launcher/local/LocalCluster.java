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
import dev.skewer.core.net.FreePorts;
import dev.skewer.node.NodeRuntime;
import dev.skewer.node.NodeSettings;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.BindException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts {@code nodes} nodes and {@code coordinators} coordinators in this JVM, each with its own
 * Vert.x instance and (when asked) its own Hazelcast member, all joining one cluster on loopback.
 * {@link #close} stops coordinators last so in-flight Partials are still merged.
 */
public final class LocalCluster implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(LocalCluster.class);

  private final List<NodeRuntime> nodes = new ArrayList<>();
  private final List<CoordinatorRuntime> coordinators = new ArrayList<>();
  private final List<HazelcastInstance> members = new ArrayList<>();
  private final List<CheckpointStore> stores = new ArrayList<>();
  private final CheckpointStore sharedStore = new InMemoryCheckpointStore();
  private final Frontier sharedFrontier = new InMemoryFrontier();
  private final JobNames names;
  private final java.util.Map<CoordinatorRuntime, HazelcastInstance> coordinatorMembers =
      new java.util.HashMap<>();
  private static final int BIND_ATTEMPTS = 5;
  private final List<String> memberAddresses = new ArrayList<>();
  private boolean hazelcast;
  private Restart restart; // how to start one more coordinator like the first ones

  private record Restart(
      JobSpec job,
      KafkaSettings kafka,
      MeterRegistry registry,
      Clock clock,
      HotKeySettings hotKeys) {}

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
    cluster.restart = new Restart(job, kafka, registry, clock, hotKeys);
    try {
      cluster.hazelcast = hazelcast;
      for (int i = 1; i <= coordinatorCount; i++) {
        String id = "coordinator-" + i;
        HazelcastInstance hz = cluster.member(id, "coordinator");
        cluster.startCoordinator(id, i == 1 ? httpPort : 0, hz);
      }
      for (int i = 1; i <= nodeCount; i++) {
        String id = "node-" + i;
        HazelcastInstance hz = cluster.member(id, "node");
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

  private CoordinatorRuntime startCoordinator(String id, int httpPort, HazelcastInstance hz)
      throws Exception {
    Restart r = restart;
    CoordinatorRuntime c =
        CoordinatorRuntime.begin(
                CoordinatorSettings.of(id, r.job(), r.kafka(), httpPort).withHotKeys(r.hotKeys()),
                QuerySettings.defaults(),
                r.registry())
            .finish(r.clock(), store(hz, r.kafka()), hz, frontier(hz), null);
    coordinators.add(c);
    if (hz != null) {
      coordinatorMembers.put(c, hz);
    }
    return c;
  }

  /**
   * Starts one more coordinator (HTTP on any free port), with its own Hazelcast member joining the
   * cluster when the cluster has members — as a replacement process would.
   */
  public CoordinatorRuntime addCoordinator(String id) throws Exception {
    HazelcastInstance hz = member(id, "coordinator");
    return startCoordinator(id, 0, hz);
  }

  /**
   * Takes a coordinator down the way a crash does, as far as one JVM allows: its Hazelcast member
   * is terminated first (no graceful migration; checkpoints it still tries to write fail), then its
   * Vert.x is closed, so its consumer leaves the group and its partials partitions move.
   */
  public void killCoordinator(CoordinatorRuntime coordinator) {
    HazelcastInstance hz = coordinatorMembers.remove(coordinator);
    if (hz != null) {
      hz.getLifecycleService().terminate();
      members.remove(hz);
    }
    coordinators.remove(coordinator);
    coordinator.close();
  }

  /**
   * Starts a Hazelcast member joining the members started so far, or none without Hazelcast. Its
   * port is picked just before it binds; a port something else took in between (an outgoing
   * connection's ephemeral port, another test's process) is replaced by another one.
   */
  private HazelcastInstance member(String name, String role) {
    if (!hazelcast) {
      return null;
    }
    for (int attempt = 1; ; attempt++) {
      int port = FreePorts.next();
      List<String> memberList = new ArrayList<>(memberAddresses);
      memberList.add("127.0.0.1:" + port);
      try {
        HazelcastInstance hz =
            HazelcastMembers.start(
                ClusterSettings.loopback(names.hazelcastClusterName(), port, memberList),
                name,
                role,
                names.jobName());
        memberAddresses.add("127.0.0.1:" + port);
        members.add(hz);
        return hz;
      } catch (RuntimeException e) {
        if (attempt >= BIND_ATTEMPTS || !portTaken(e)) {
          throw e;
        }
        LOG.info("port {} was taken before member {} could bind it; picking another", port, name);
      }
    }
  }

  private static boolean portTaken(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof BindException
          || (t.getMessage() != null && t.getMessage().contains("is already in use"))) {
        return true;
      }
    }
    return false;
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

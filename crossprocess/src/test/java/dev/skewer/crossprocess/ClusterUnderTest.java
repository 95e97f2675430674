package dev.skewer.crossprocess;

import static org.awaitility.Awaitility.await;

import dev.skewer.coordinator.hotkey.HotKeyPublisher;
import dev.skewer.core.checkpoint.HazelcastCheckpointStore;
import dev.skewer.core.job.Guarantee;
import dev.skewer.core.job.JobNames;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.core.kafka.TopicProvisioner;
import dev.skewer.core.net.FreePorts;
import dev.skewer.crossprocess.SkewerProcess.Role;
import dev.skewer.testkit.job.JobYaml;
import dev.skewer.testkit.kafka.KafkaBrokerProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Skewer cluster of child JVMs on a real broker: N nodes and M coordinators, every one a
 * Hazelcast member on a free loopback port listing all the others, sharing one job file whose
 * topics and consumer groups are prefixed with the cluster's name so that scenarios can share a
 * broker (the Hazelcast cluster and the checkpoint topic {@code <name>.checkpoints} are the
 * cluster's own too).
 *
 * <p>The broker is either shared ({@link Builder#broker}, never stopped here) or owned ({@link
 * Builder#ownBroker}, started in the work dir and killed by {@link #close}). Consumer groups are
 * {@code <name>-nodes} and {@code <name>-coordinators} ({@code --group}). Every child gets {@code
 * -X session.timeout.ms} and {@code -X heartbeat.interval.ms} so that failover is quick.
 *
 * <p>{@link #close} kills every child (and an owned broker) and is idempotent; logs stay in {@link
 * #workDir()}. Not thread-safe.
 */
public final class ClusterUnderTest implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ClusterUnderTest.class);
  public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(6);
  public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(1);
  public static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

  /**
   * Where clusters put their job file, logs and (owned) broker data: {@code target/crossprocess}.
   */
  public static final Path ROOT = Path.of("target", "crossprocess");

  private final String name;
  private final Path workDir;
  private final KafkaBrokerProcess broker;
  private final boolean ownsBroker;
  private final JobSpec job;
  private final Path jobFile;
  private final List<SkewerProcess> nodes;
  private final List<SkewerProcess> coordinators;
  private Admin admin;
  private boolean closed;

  private ClusterUnderTest(
      String name,
      Path workDir,
      KafkaBrokerProcess broker,
      boolean ownsBroker,
      JobSpec job,
      Path jobFile,
      List<SkewerProcess> nodes,
      List<SkewerProcess> coordinators) {
    this.name = name;
    this.workDir = workDir;
    this.broker = broker;
    this.ownsBroker = ownsBroker;
    this.job = job;
    this.jobFile = jobFile;
    this.nodes = nodes; // filled by the builder as the processes launch
    this.coordinators = coordinators;
  }

  /**
   * A cluster named {@code name}: a short lowercase word that prefixes topics, groups, process ids
   * and the work dir.
   */
  public static Builder builder(String name) {
    return new Builder(name);
  }

  /**
   * How long a partition of the scenarios' job must be silent to be idle, and to be finalized (end
   * of input). Longer than the time between a node taking its partitions and the load starting
   * (6–13 s measured on a busy two-core machine, while the other processes start): a partition idle
   * when the load starts does not hold the watermark back, so one whose node fetches the first
   * records a moment after the others' would bring data for windows they have closed — revisions by
   * design (docs/guarantees.md), which the reference, modelling no idleness, does not expect. The
   * scenarios' event time runs ten times faster than the clock, so a second of difference closes a
   * window.
   */
  public static final Duration SCENARIO_IDLE = Duration.ofSeconds(25);

  /**
   * The scenarios' job: testkit's {@link JobYaml} defaults (tumbling 10 s windows, delay 2 s,
   * lateness 5 s, 4 event partitions and 2 partials partitions, W1's event shape, every topic
   * prefixed with {@code name}) with idle and finalized after {@link #SCENARIO_IDLE}.
   */
  public static String defaultJobYaml(String name) {
    return defaultJobYaml(name, Guarantee.AT_LEAST_ONCE);
  }

  /** {@link #defaultJobYaml(String)} with the job's {@code guarantee}. */
  public static String defaultJobYaml(String name, Guarantee guarantee) {
    return JobYaml.named(name)
        .guarantee(guarantee)
        .idle(SCENARIO_IDLE)
        .finalizeAfterIdle(SCENARIO_IDLE)
        .yaml();
  }

  public String name() {
    return name;
  }

  public Path workDir() {
    return workDir;
  }

  public KafkaBrokerProcess broker() {
    return broker;
  }

  public String bootstrap() {
    return broker.bootstrapServers();
  }

  public JobSpec job() {
    return job;
  }

  public Path jobFile() {
    return jobFile;
  }

  public List<SkewerProcess> nodes() {
    return Collections.unmodifiableList(nodes);
  }

  public List<SkewerProcess> coordinators() {
    return Collections.unmodifiableList(coordinators);
  }

  /** Nodes first, then coordinators. */
  public List<SkewerProcess> processes() {
    return Stream.concat(nodes.stream(), coordinators.stream()).collect(Collectors.toList());
  }

  /**
   * Every running process writes its threads' stacks to its log; returns once they had a moment to
   * do so.
   */
  public void dumpThreads() {
    processes().forEach(SkewerProcess::dumpThreads);
    try {
      Thread.sleep(2_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  public String nodeGroup() {
    return name + "-nodes";
  }

  public String coordinatorGroup() {
    return name + "-coordinators";
  }

  /**
   * One look at a consumer group.
   *
   * @param state the group's state
   * @param assignments client id → partitions of the group's topic, for every member (a client id
   *     held by two members, e.g. a restarted process whose predecessor has not yet expired, shows
   *     the union; {@link #members} tells them apart)
   * @param members the number of members
   */
  public record GroupSnapshot(
      GroupState state, Map<String, Set<Integer>> assignments, int members) {

    /** Every partition assigned to some member. */
    public Set<Integer> assigned() {
      Set<Integer> all = new TreeSet<>();
      assignments.values().forEach(all::addAll);
      return all;
    }
  }

  /** Describes {@code group}; null when the broker does not answer in 5 s. */
  public GroupSnapshot describe(String group) {
    String topic = group.equals(nodeGroup()) ? job.topics().events() : job.topics().partials();
    try {
      ConsumerGroupDescription d =
          admin()
              .describeConsumerGroups(List.of(group))
              .describedGroups()
              .get(group)
              .get(5, TimeUnit.SECONDS);
      Map<String, Set<Integer>> assignments = new LinkedHashMap<>();
      for (MemberDescription m : d.members()) {
        Set<Integer> ps = assignments.computeIfAbsent(m.clientId(), k -> new TreeSet<>());
        for (TopicPartition tp : m.assignment().topicPartitions()) {
          if (tp.topic().equals(topic)) {
            ps.add(tp.partition());
          }
        }
      }
      return new GroupSnapshot(d.groupState(), assignments, d.members().size());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (Exception e) {
      return null;
    }
  }

  /** The event partitions {@code node} owns now, by the broker's view of the group. */
  public Set<Integer> partitionsOf(SkewerProcess process) {
    String group = process.role() == Role.NODE ? nodeGroup() : coordinatorGroup();
    GroupSnapshot s = describe(group);
    return s == null
        ? Set.of()
        : s.assignments().getOrDefault(process.consumerClientId(), Set.of());
  }

  /**
   * Whether both groups are stable with exactly the running processes as members and every
   * partition assigned. A paused process counts as running: use {@link #settledWithout}.
   */
  public boolean settled() {
    return settledWithout(Set.of());
  }

  /** {@link #settled}, not counting {@code absent} (e.g. a paused node) as a member. */
  public boolean settledWithout(Set<SkewerProcess> absent) {
    return groupSettled(nodeGroup(), nodes, absent, job.topics().eventsPartitions())
        && groupSettled(
            coordinatorGroup(), coordinators, absent, job.topics().partialsPartitions());
  }

  /** Waits for {@link #settled}; the failure message shows both groups. */
  public void awaitSettled(Duration timeout) {
    awaitSettledWithout(Set.of(), timeout);
  }

  /** Waits for {@link #settledWithout}. */
  public void awaitSettledWithout(Set<SkewerProcess> absent, Duration timeout) {
    try {
      await()
          .atMost(timeout)
          .pollInterval(Duration.ofMillis(250))
          .ignoreExceptions()
          .until(() -> settledWithout(absent));
    } catch (ConditionTimeoutException e) {
      throw new IllegalStateException(
          "cluster "
              + name
              + " did not settle within "
              + timeout
              + ": nodes "
              + describe(nodeGroup())
              + ", coordinators "
              + describe(coordinatorGroup())
              + ", processes "
              + processes(),
          e);
    }
  }

  /** SIGKILL to every Skewer process at once (all signals sent before waiting for any exit). */
  public void killAll() {
    List<SkewerProcess> all = processes();
    all.forEach(SkewerProcess::killNoWait);
    all.forEach(SkewerProcess::kill);
  }

  /** Launches every process that is not running, then waits until each is ready. */
  public void startAll() {
    List<SkewerProcess> started = new ArrayList<>();
    for (SkewerProcess p : processes()) {
      if (!p.isAlive()) {
        p.start();
        started.add(p);
      }
    }
    started.forEach(p -> p.awaitReady(READY_TIMEOUT));
  }

  /** Kills every child, closes the admin client and an owned broker. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    List<SkewerProcess> all = processes();
    all.forEach(SkewerProcess::killNoWait);
    all.forEach(SkewerProcess::close);
    if (admin != null) {
      admin.close(Duration.ofSeconds(5));
    }
    if (ownsBroker) {
      broker.close();
    }
    LOG.info("cluster {} closed; logs in {}", name, workDir.toAbsolutePath());
  }

  private boolean groupSettled(
      String group, List<SkewerProcess> members, Set<SkewerProcess> absent, int partitions) {
    Set<String> expected =
        members.stream()
            .filter(p -> p.isAlive() && !absent.contains(p))
            .map(SkewerProcess::consumerClientId)
            .collect(Collectors.toCollection(TreeSet::new));
    GroupSnapshot s = describe(group);
    return s != null
        && s.state() == GroupState.STABLE
        && s.members() == expected.size()
        && s.assignments().keySet().equals(expected)
        && s.assigned().size() == partitions;
  }

  private synchronized Admin admin() {
    if (admin == null) {
      Map<String, Object> c = new HashMap<>();
      c.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
      c.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
      c.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5_000);
      admin = Admin.create(c);
    }
    return admin;
  }

  /** How to build a {@link ClusterUnderTest}. */
  public static final class Builder {
    private final String name;
    private KafkaBrokerProcess broker;
    private boolean ownBroker;
    private String jobYaml;
    private int nodes = 3;
    private int coordinators = 1;
    private Duration sessionTimeout = DEFAULT_SESSION_TIMEOUT;
    private Duration heartbeatInterval = DEFAULT_HEARTBEAT_INTERVAL;
    private final Map<String, String> kafkaProperties = new LinkedHashMap<>();

    private Builder(String name) {
      if (name == null || !name.matches("[a-z][a-z0-9-]{0,30}")) {
        throw new IllegalArgumentException("name must match [a-z][a-z0-9-]{0,30}, was " + name);
      }
      this.name = name;
    }

    /** Runs on a shared broker, which {@link #close} leaves running. */
    public Builder broker(KafkaBrokerProcess shared) {
      this.broker = shared;
      this.ownBroker = false;
      return this;
    }

    /** Starts a broker of its own in the work dir, killed by {@link #close}. */
    public Builder ownBroker() {
      this.broker = null;
      this.ownBroker = true;
      return this;
    }

    /** The job file's content; default {@link #defaultJobYaml}. */
    public Builder jobYaml(String yaml) {
      this.jobYaml = yaml;
      return this;
    }

    public Builder nodes(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("nodes must be >= 1, was " + n);
      }
      this.nodes = n;
      return this;
    }

    public Builder coordinators(int m) {
      if (m < 1) {
        throw new IllegalArgumentException("coordinators must be >= 1, was " + m);
      }
      this.coordinators = m;
      return this;
    }

    /** The children's consumer {@code session.timeout.ms}; heartbeats every sixth of it, ≤ 1 s. */
    public Builder sessionTimeout(Duration timeout) {
      this.sessionTimeout = timeout;
      this.heartbeatInterval =
          Duration.ofMillis(
              Math.min(DEFAULT_HEARTBEAT_INTERVAL.toMillis(), timeout.toMillis() / 6));
      return this;
    }

    /** Any other {@code -X} Kafka property for every child. */
    public Builder kafkaProperty(String key, String value) {
      kafkaProperties.put(key, value);
      return this;
    }

    /**
     * Provisions the job's topics, launches every process at once, and returns when each is ready
     * and both consumer groups have settled. On failure everything started is killed.
     */
    public ClusterUnderTest start() {
      Path workDir =
          ROOT.resolve(
              name + "-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("HHmmss-SSS")));
      String yaml = jobYaml == null ? defaultJobYaml(name) : jobYaml;
      JobSpec job = JobSpecLoader.parse(yaml, Map.of());
      Path jobFile = workDir.resolve("job.yaml");
      try {
        Files.createDirectories(workDir);
        Files.writeString(jobFile, yaml, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write " + jobFile, e);
      }
      KafkaBrokerProcess b =
          ownBroker ? KafkaBrokerProcess.start(workDir.resolve("broker"), 0) : broker;
      if (b == null) {
        throw new IllegalStateException("no broker: call broker(shared) or ownBroker()");
      }
      List<SkewerProcess> nodeList = new ArrayList<>();
      List<SkewerProcess> coordinatorList = new ArrayList<>();
      ClusterUnderTest cluster =
          new ClusterUnderTest(
              name, workDir, b, ownBroker, job, jobFile, nodeList, coordinatorList);
      try {
        // every topic the children need: they run with --no-provision
        KafkaSettings kafka = KafkaSettings.of(b.bootstrapServers());
        try (Admin a = Admin.create(kafka.adminConfig())) {
          TopicProvisioner.ensureTopics(a, job.topics(), Duration.ofSeconds(60));
          HotKeyPublisher.ensureTopic(
              a,
              JobNames.of(job).hotKeysTopic(),
              job.topics().replicationFactor(),
              Duration.ofSeconds(60),
              true);
        }
        HazelcastCheckpointStore.ensureTopic(kafka, name + ".checkpoints", true);
        int[] hzPorts = new int[nodes + coordinators];
        List<String> members = new ArrayList<>();
        for (int i = 0; i < hzPorts.length; i++) {
          hzPorts[i] = FreePorts.next();
          members.add("127.0.0.1:" + hzPorts[i]);
        }
        Map<String, String> common = new LinkedHashMap<>();
        common.put("session.timeout.ms", Long.toString(sessionTimeout.toMillis()));
        common.put("heartbeat.interval.ms", Long.toString(heartbeatInterval.toMillis()));
        common.putAll(kafkaProperties);
        for (int i = 0; i < nodes + coordinators; i++) {
          boolean node = i < nodes;
          List<String> args =
              List.of(
                  "--group",
                  node ? name + "-nodes" : name + "-coordinators",
                  "--checkpoint-topic",
                  name + ".checkpoints");
          SkewerProcess.Spec spec =
              new SkewerProcess.Spec(
                  node ? Role.NODE : Role.COORDINATOR,
                  name + (node ? "-node-" + i : "-coordinator-" + (i - nodes)),
                  jobFile.toAbsolutePath(),
                  b.bootstrapServers(),
                  hzPorts[i],
                  members,
                  common,
                  node ? 0 : FreePorts.next(),
                  args,
                  workDir);
          (node ? nodeList : coordinatorList).add(SkewerProcess.launch(spec));
        }
        for (SkewerProcess p : cluster.processes()) {
          p.awaitReady(READY_TIMEOUT);
        }
        cluster.awaitSettled(READY_TIMEOUT);
        LOG.info(
            "cluster {} ready: {} nodes, {} coordinators on {}; work dir {}",
            name,
            nodes,
            coordinators,
            b.bootstrapServers(),
            workDir);
        return cluster;
      } catch (RuntimeException | Error e) {
        cluster.close();
        throw e;
      }
    }
  }

  /** For failure messages: the ids and pids. */
  @Override
  public String toString() {
    return name + processes();
  }
}

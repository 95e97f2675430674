package dev.skewer.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skewer.core.job.JobNames;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import dev.skewer.crossprocess.ChildLogging;
import dev.skewer.crossprocess.EndOfInput;
import dev.skewer.crossprocess.LoadRun;
import dev.skewer.crossprocess.OrphanGuard;
import dev.skewer.crossprocess.SkewerProcess;
import dev.skewer.loadgen.produce.LoadSummary;
import dev.skewer.loadgen.reference.ExactReference;
import dev.skewer.testkit.kafka.KafkaBrokerProcess;
import dev.skewer.testkit.kafka.TopicReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Skewer across real network hosts: the broker, two nodes and a coordinator each on its own host
 * ({@link NetworkHosts}: a network namespace with its own address on a bridge), started with the
 * flags an operator would use on separate machines ({@code --bind-address}, a {@code --hz-member}
 * address list, {@code --kafka-config}; every other name derived from the job). A workload runs;
 * mid-stream one node's host is cut off (link down) for longer than the consumer session timeout,
 * then brought back while the stream goes on.
 *
 * <p>Required: its partitions move to the other node; the cut-off member is fenced — the take-over
 * raised the fencing epoch of each of its partitions in the checkpoint store (so nothing it still
 * holds can be checkpointed), and on its return the consumer group has ended its membership (its
 * partitions are lost to it, not handed back) — and it rejoins. Whatever it still held that arrives
 * after the take-over is refused (a checkpoint fenced, Partials dropped as an older epoch's); how
 * much arrives depends on the cut's timing, so those counts are reported. Nothing lost or doubled:
 * every (key, window) exact with one final result, no (result key, revision) written twice, the
 * total count the reference's, the late topic and the DLQ exactly the reference's events.
 */
class MultiHostIT {

  static final String NAME = "multihost";
  static final long EVENTS = 150_000;
  static final double RATE = 5_000;

  @BeforeAll
  static void requireNamespaces() {
    Optional<String> why = NetworkHosts.unavailable();
    Assumptions.assumeTrue(why.isEmpty(), () -> "skipped: " + why.orElse(""));
  }

  @Test
  void shouldFailOverAndFenceANodeWhoseHostIsCutOff() throws IOException {
    Path work = TestCluster.workDir("multi-host", NAME);
    Files.createDirectories(work);
    List<HostProcess> processes = new ArrayList<>();
    // h1: broker; h2, h3: nodes; h4: coordinator
    try (NetworkHosts net = NetworkHosts.create(4);
        KafkaBrokerProcess broker =
            KafkaBrokerProcess.start(
                work.resolve("broker"), net.host(1).address(), 9092, net.host(1).exec());
        Admin admin = TestCluster.admin(broker.bootstrapServers());
        // closed first: every Skewer process is killed before the broker and the hosts go
        HostProcess.Group group = new HostProcess.Group(processes)) {
      // given the processes on their hosts, each told where the others are
      String yaml = TestCluster.jobYaml(NAME);
      JobSpec job = JobSpecLoader.parse(yaml, Map.of());
      JobNames names = JobNames.of(job);
      Path jobFile = work.resolve("job.yaml");
      Files.writeString(jobFile, yaml, StandardCharsets.UTF_8);
      Path kafkaConfig = work.resolve("kafka.properties");
      Files.writeString(
          kafkaConfig,
          TestCluster.kafkaProperties().entrySet().stream()
              .map(e -> e.getKey() + "=" + e.getValue())
              .collect(Collectors.joining("\n", "", "\n")),
          StandardCharsets.UTF_8);
      List<String> members =
          List.of(
              net.host(2).address() + ":5701",
              net.host(3).address() + ":5701",
              net.host(4).address() + ":5701");
      NetworkHosts.Host cutHost = net.host(2);
      Launch launch = new Launch(work, jobFile, kafkaConfig, broker.bootstrapServers(), members);
      HostProcess node1 = launch.start(processes, net.host(2), "node", "node-1", 8081);
      HostProcess node2 = launch.start(processes, net.host(3), "node", "node-2", 8081);
      HostProcess coordinator =
          launch.start(processes, net.host(4), "coordinator", "coordinator-1", 8080);
      TestCluster.awaitOk(url(net.host(2), 8081, "/health/ready"), node1);
      TestCluster.awaitOk(url(net.host(3), 8081, "/health/ready"), node2);
      TestCluster.awaitOk(url(net.host(4), 8080, "/health/ready"), coordinator);
      TestCluster.awaitMembers(
          url(net.host(4), 8080, "/api/v1/cluster"),
          List.of("node-1", "node-2", "coordinator-1"),
          3);
      String nodeGroup = names.nodesGroup();
      String events = job.topics().events();
      int partitions = job.topics().eventsPartitions();
      await()
          .atMost(TestCluster.READY_TIMEOUT)
          .until(() -> stable(admin, nodeGroup, events, 2, partitions));

      ExactReference reference = TestCluster.reference(job);
      try (LoadRun load =
          LoadRun.start(
              broker.bootstrapServers(),
              job,
              TestCluster.workload(NAME, EVENTS, 11),
              reference,
              RATE)) {
        // when node-1's host is cut off mid-stream for longer than the session timeout
        load.awaitSent(EVENTS / 4, Duration.ofMinutes(1));
        TestCluster.Group before = TestCluster.describe(admin, nodeGroup, events);
        Set<Integer> node1Partitions = before.byClient().get(consumerClientId("node-1"));
        assertThat(before.byClient().values())
            .as("both nodes own partitions: %s", before)
            .hasSize(2)
            .allMatch(p -> !p.isEmpty());
        Map<Integer, Long> epochsBefore = epochs(broker.bootstrapServers(), names, job);
        String coordinatorMetricsUrl = url(net.host(4), 8080, "/metrics");
        long staleBefore =
            TestCluster.metric(
                TestCluster.httpBody(coordinatorMetricsUrl), "skewer_partials_stale_total");
        String node1MetricsUrl = url(net.host(2), 8081, "/metrics");
        long fencedBefore =
            TestCluster.metric(
                TestCluster.httpBody(node1MetricsUrl), "skewer_partitions_fenced_total");
        long cutAt = System.nanoTime();
        net.cut(cutHost);

        // then its partitions move to the other node
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(250))
            .until(() -> stable(admin, nodeGroup, events, 1, partitions));
        Duration moved = Duration.ofNanos(System.nanoTime() - cutAt);
        TestCluster.Group during = TestCluster.describe(admin, nodeGroup, events);
        assertThat(during.byClient()).containsOnlyKeys(consumerClientId("node-2"));
        // and their fencing epochs rise past node-1's: nothing node-1 holds can be checkpointed
        AtomicReference<Map<Integer, Long>> epochsAfter = new AtomicReference<>(Map.of());
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofSeconds(1))
            .ignoreExceptions()
            .until(
                () -> {
                  epochsAfter.set(epochs(broker.bootstrapServers(), names, job));
                  return node1Partitions.stream()
                      .allMatch(
                          p ->
                              epochsAfter.get().getOrDefault(p, 0L)
                                  > epochsBefore.getOrDefault(p, 0L));
                });
        // keep it cut off a little longer while the stream goes on
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    System.nanoTime() - cutAt
                        > TestCluster.SESSION_TIMEOUT.plusSeconds(6).toNanos());
        Duration cut = Duration.ofNanos(System.nanoTime() - cutAt);
        int nodeLogBeforeHeal = node1.logSinceStart().length();
        net.heal(cutHost);

        // and once it is back, the group has ended its membership: it lost what it held
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(500))
            .alias("node-1 told by the group that it lost " + node1Partitions)
            .until(() -> lostLine(node1.logSinceStart().substring(nodeLogBeforeHeal)).isPresent());
        // and it rejoins
        await()
            .atMost(Duration.ofSeconds(90))
            .pollInterval(Duration.ofMillis(250))
            .until(() -> stable(admin, nodeGroup, events, 2, partitions));
        String afterHeal = node1.logSinceStart().substring(nodeLogBeforeHeal);
        System.err.printf(
            "multi-host: %s cut off for %d ms; partitions moved after %d ms (before %s, during %s);"
                + " epochs %s -> %s; node-1 after the heal: %s%n",
            cutHost.address(),
            cut.toMillis(),
            moved.toMillis(),
            before.byClient(),
            during.byClient(),
            epochsBefore,
            epochsAfter.get(),
            lostLine(afterHeal).orElse("?"));

        LoadSummary sent = load.awaitEnd(Duration.ofMinutes(3));
        assertThat(sent.sent()).isEqualTo(EVENTS);
        assertThat(sent.failed()).isZero();
        assertThat(node1.isAlive()).as("node-1 survived the cut%s", node1.tail(20)).isTrue();
        EndOfInput.send(
            broker.bootstrapServers(), job.topics().events(), job.topics().eventsPartitions());

        // nothing lost, nothing doubled
        Verdict verdict =
            Verdict.of(
                broker.bootstrapServers(),
                reference,
                job.topics().results(),
                job.topics().late(),
                job.topics().dlq());
        String node1Metrics = TestCluster.httpBody(node1MetricsUrl);
        long fenced =
            TestCluster.metric(node1Metrics, "skewer_partitions_fenced_total") - fencedBefore;
        long stale =
            TestCluster.metric(
                    TestCluster.httpBody(coordinatorMetricsUrl), "skewer_partials_stale_total")
                - staleBefore;
        System.err.printf(
            "multi-host: %s | node-1: %d fenced since the cut, %d rewinds; coordinator: %d stale"
                + " Partials dropped since the cut | logs %s%n",
            verdict.summary(),
            fenced,
            TestCluster.metric(node1Metrics, "skewer_partitions_rewinds_total"),
            stale,
            work);
        verdict.assertExact(reference);
        // what node-1 still held from before the take-over was refused wherever it arrived: its
        // next checkpoint fenced by the store, or the Partials its producer held during the cut
        // dropped by the coordinators as an older epoch's — and either way nothing doubled (the
        // verdict above). How much of it arrives anywhere depends on where node-1 was in its
        // emit and checkpoint cycle at the cut (seen: 2 fenced and 0 stale; 0 fenced and 4
        // stale; 0 and 0 — nothing unsent at the cut, and the group told node-1 of its loss at its
        // first heartbeat after the heal, before a checkpoint), so the counts are reported, not
        // required; what is required is above: the epochs raised past node-1's before it came
        // back, the group ending its membership, exact results (printed above with both counts).
      }
    }
  }

  /** The node stage's consumer client id (NodeVerticle). */
  static String consumerClientId(String nodeId) {
    return "skewer-" + nodeId + "-events";
  }

  /** The runtime's line for partitions the group took away while the process was not a member. */
  static Optional<String> lostLine(String log) {
    return log.lines()
        .filter(l -> l.contains(" lost [") && l.contains("no longer a group member"))
        .findFirst();
  }

  /**
   * The latest fencing epoch of each node partition, from the job's checkpoint topic (the store
   * mirrors every epoch there as {@code epoch/<checkpoint id>}).
   */
  static Map<Integer, Long> epochs(String bootstrap, JobNames names, JobSpec job) {
    String prefix = "epoch/node/" + job.name() + "/" + job.topics().events() + "/";
    Map<Integer, Long> latest = new TreeMap<>();
    for (ConsumerRecord<byte[], byte[]> r :
        TopicReader.readAll(bootstrap, names.checkpointsTopic(), Duration.ofSeconds(20))) {
      String key = new String(r.key(), StandardCharsets.UTF_8);
      if (key.startsWith(prefix) && r.value() != null) {
        latest.put(
            Integer.parseInt(key.substring(prefix.length())), ByteBuffer.wrap(r.value()).getLong());
      }
    }
    return latest;
  }

  private static boolean stable(
      Admin admin, String group, String topic, int members, int partitions) {
    TestCluster.Group g = TestCluster.describe(admin, group, topic);
    return g != null && g.stableWith(members, partitions);
  }

  static String url(NetworkHosts.Host host, int port, String path) {
    return "http://" + host.address() + ":" + port + path;
  }

  /** The product jar (what a user runs on a host) plus the orphan guard's jar. */
  static String productClassPath() {
    try {
      Path guard =
          Path.of(OrphanGuard.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return Repo.productJar() + java.io.File.pathSeparator + guard;
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException("cannot locate " + OrphanGuard.class, e);
    }
  }

  /** What every host is given: the job file, the client properties, Kafka and the member list. */
  record Launch(Path work, Path jobFile, Path kafkaConfig, String bootstrap, List<String> members) {

    /**
     * {@code skewer <role>} on {@code host}, with the flags an operator would give on that machine.
     */
    HostProcess start(
        List<HostProcess> processes, NetworkHosts.Host host, String role, String id, int httpPort) {
      List<String> c = new ArrayList<>(host.exec());
      c.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
      c.add("-Xmx384m");
      c.add("-XX:+UseSerialGC");
      c.addAll(SkewerProcess.HAZELCAST_JVM_FLAGS);
      c.add("-Dlogback.configurationFile=" + ChildLogging.configFile(work));
      c.add(OrphanGuard.parentPidOption());
      c.add("-cp");
      c.add(productClassPath());
      c.add(OrphanGuard.class.getName());
      c.add(SkewerProcess.MAIN_CLASS);
      c.addAll(
          List.of(
              role,
              "--id",
              id,
              "--job",
              jobFile.toString(),
              "--bootstrap",
              bootstrap,
              "--kafka-config",
              kafkaConfig.toString(),
              "--bind-address",
              host.address(),
              "--http-port",
              Integer.toString(httpPort),
              "--hz-member",
              String.join(",", members)));
      HostProcess p = HostProcess.start(id, c, Map.of(), work.resolve(id + ".log"));
      processes.add(p);
      return p;
    }
  }
}

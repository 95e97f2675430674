package dev.skewer.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import dev.skewer.core.kafka.TopicProvisioner;
import dev.skewer.crossprocess.ChildLogging;
import dev.skewer.crossprocess.LoadRun;
import dev.skewer.crossprocess.OrphanGuard;
import dev.skewer.crossprocess.SkewerProcess;
import dev.skewer.loadgen.produce.LoadSummary;
import dev.skewer.loadgen.reference.ExactReference;
import dev.skewer.testkit.kafka.KafkaBrokerProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Skewer across real network hosts: the broker, two nodes and a coordinator each on its own host
 * ({@link NetworkHosts}: a network namespace with its own address on a bridge), started with the
 * flags an operator would use on separate machines ({@code --bind-address}, {@code --hz-member}
 * address list, {@code --kafka-config}). A workload runs; mid-stream one node's host is cut off
 * (link down) for longer than the consumer session timeout — its partitions must move to the other
 * node — and then brought back, while the stream goes on. The node that was cut off comes back as a
 * zombie holding stale state and must be fenced: the results must be exact (nothing lost, nothing
 * counted twice, one final result per window), and the late topic and DLQ exactly the reference's.
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
      // given the job's topics and the processes on their hosts
      String yaml = TestCluster.jobYaml(NAME);
      JobSpec job = JobSpecLoader.parse(yaml, Map.of());
      Path jobFile = work.resolve("job.yaml");
      Files.writeString(jobFile, yaml, StandardCharsets.UTF_8);
      Path kafkaConfig = work.resolve("kafka.properties");
      Files.writeString(
          kafkaConfig,
          TestCluster.kafkaProperties().entrySet().stream()
              .map(e -> e.getKey() + "=" + e.getValue())
              .collect(Collectors.joining("\n", "", "\n")),
          StandardCharsets.UTF_8);
      TopicProvisioner.ensureTopics(admin, job.topics(), Duration.ofSeconds(60));
      List<String> members =
          List.of(
              net.host(2).address() + ":5701",
              net.host(3).address() + ":5701",
              net.host(4).address() + ":5701");
      NetworkHosts.Host cutHost = net.host(2);
      HostProcess node1 =
          start(
              processes,
              work,
              net.host(2),
              "node",
              "node-1",
              8081,
              jobFile,
              kafkaConfig,
              broker,
              members);
      HostProcess node2 =
          start(
              processes,
              work,
              net.host(3),
              "node",
              "node-2",
              8081,
              jobFile,
              kafkaConfig,
              broker,
              members);
      HostProcess coordinator =
          start(
              processes,
              work,
              net.host(4),
              "coordinator",
              "coordinator-1",
              8080,
              jobFile,
              kafkaConfig,
              broker,
              members);
      TestCluster.awaitOk(health(net.host(2), 8081), node1);
      TestCluster.awaitOk(health(net.host(3), 8081), node2);
      TestCluster.awaitOk(health(net.host(4), 8080), coordinator);
      String nodeGroup = NAME + "-nodes";
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
        assertThat(before.byClient().values())
            .as("both nodes own partitions: %s", before)
            .hasSize(2)
            .allMatch(p -> !p.isEmpty());
        long cutAt = System.nanoTime();
        net.cut(cutHost);
        // then its partitions move to the other node
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(250))
            .until(() -> stable(admin, nodeGroup, events, 1, partitions));
        Duration moved = Duration.ofNanos(System.nanoTime() - cutAt);
        TestCluster.Group during = TestCluster.describe(admin, nodeGroup, events);
        // keep it cut off a little longer while the stream goes on
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    System.nanoTime() - cutAt
                        > TestCluster.SESSION_TIMEOUT.plusSeconds(6).toNanos());
        Duration cut = Duration.ofNanos(System.nanoTime() - cutAt);
        long nodeLogBeforeHeal = node1.logSinceStart().length();
        net.heal(cutHost);
        // and it rejoins once it is back
        await()
            .atMost(Duration.ofSeconds(90))
            .pollInterval(Duration.ofMillis(250))
            .until(() -> stable(admin, nodeGroup, events, 2, partitions));
        System.err.printf(
            "multi-host: %s cut off for %d ms (partitions moved after %d ms: before %s, during %s)%n",
            cutHost.address(),
            cut.toMillis(),
            moved.toMillis(),
            before.byClient(),
            during.byClient());

        LoadSummary sent = load.awaitEnd(Duration.ofMinutes(3));
        assertThat(sent.sent()).isEqualTo(EVENTS);
        assertThat(sent.failed()).isZero();
        assertThat(node1.isAlive()).as("node-1 survived the cut%s", node1.tail(20)).isTrue();

        // nothing lost, nothing doubled
        Verdict verdict =
            Verdict.of(
                broker.bootstrapServers(),
                reference,
                job.topics().results(),
                job.topics().late(),
                job.topics().dlq());
        String afterHeal = node1.logSinceStart().substring((int) nodeLogBeforeHeal);
        List<String> fencing =
            afterHeal
                .lines()
                .filter(l -> l.toLowerCase().contains("fenced") || l.contains("newer epoch"))
                .limit(5)
                .collect(Collectors.toList());
        System.err.println(
            "multi-host: "
                + verdict.summary()
                + " | node-1 after the heal: "
                + fencing
                + " | logs "
                + work);
        assertThat(verdict.results().problems()).as(verdict.summary()).isEmpty();
        assertThat(verdict.results().resultCount()).isEqualTo(reference.totalCount());
        assertThat(verdict.late().ok()).as(verdict.late().summary()).isTrue();
        assertThat(verdict.dlq().ok()).as(verdict.dlq().summary()).isTrue();
      }
    }
  }

  private static boolean stable(
      Admin admin, String group, String topic, int members, int partitions) {
    TestCluster.Group g = TestCluster.describe(admin, group, topic);
    return g != null && g.stableWith(members, partitions);
  }

  static String health(NetworkHosts.Host host, int port) {
    return "http://" + host.address() + ":" + port + "/health/ready";
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

  /**
   * {@code skewer <role>} on {@code host}, with the flags an operator would give on that machine.
   */
  private static HostProcess start(
      List<HostProcess> processes,
      Path work,
      NetworkHosts.Host host,
      String role,
      String id,
      int httpPort,
      Path jobFile,
      Path kafkaConfig,
      KafkaBrokerProcess broker,
      List<String> members) {
    List<String> c = new ArrayList<>(host.exec());
    c.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    c.add("-Xmx512m");
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
            broker.bootstrapServers(),
            "--kafka-config",
            kafkaConfig.toString(),
            "--no-provision",
            "--bind-address",
            host.address(),
            "--hz-port",
            "5701",
            "--http-port",
            Integer.toString(httpPort),
            "--group",
            NAME + (role.equals("node") ? "-nodes" : "-coordinators"),
            "--checkpoint-topic",
            NAME + ".checkpoints"));
    for (String m : members) {
      c.add("--hz-member");
      c.add(m);
    }
    HostProcess p = HostProcess.start(id, c, Map.of(), work.resolve(id + ".log"));
    processes.add(p);
    return p;
  }
}

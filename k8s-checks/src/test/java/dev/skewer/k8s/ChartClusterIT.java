package dev.skewer.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import dev.skewer.crossprocess.LoadRun;
import dev.skewer.loadgen.produce.LoadSummary;
import dev.skewer.loadgen.reference.ExactReference;
import dev.skewer.testkit.kafka.KafkaBrokerProcess;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The chart drives a real cluster: {@code helm template} with a value set for this machine, then
 * every pod of the rendered node and coordinator StatefulSets started as a local process exactly as
 * the chart describes it ({@link LocalPod}: the image's entrypoint on the product jar, the
 * container's args and environment, its ConfigMap files) — each pod on its own network host ({@link
 * NetworkHosts}, its address as {@code POD_IP}), Hazelcast members found by the chart's member
 * list, a real Kafka broker on another host. Readiness is the rendered readiness probe answering
 * 200; then a workload with disorder, a hot key, late, malformed and future events must come out
 * exact, and a pod stopped as a kubelet stops it (SIGTERM) must exit within its termination grace
 * period.
 */
class ChartClusterIT {

  static final String NAME = "chart";
  static final long EVENTS = 60_000;

  @BeforeAll
  static void requireNamespaces() {
    Optional<String> why = NetworkHosts.unavailable();
    Assumptions.assumeTrue(why.isEmpty(), () -> "skipped: " + why.orElse(""));
  }

  @Test
  void shouldComputeExactResultsWithTheProcessesTheChartDescribes() throws IOException {
    Path work = TestCluster.workDir("chart-cluster", NAME);
    Files.createDirectories(work);
    List<HostProcess> pods = new ArrayList<>();
    // h1: the broker; h2, h3: nodes; h4, h5: coordinators
    try (NetworkHosts net = NetworkHosts.create(5)) {
      try (KafkaBrokerProcess broker =
              KafkaBrokerProcess.start(
                  work.resolve("broker"), net.host(1).address(), 9092, net.host(1).exec());
          // closed first: every pod is killed before the broker and the hosts go
          HostProcess.Group group = new HostProcess.Group(pods)) {
        // given the chart rendered for these hosts
        List<NetworkHosts.Host> nodeHosts = List.of(net.host(2), net.host(3));
        List<NetworkHosts.Host> coordinatorHosts = List.of(net.host(4), net.host(5));
        Path values = work.resolve("values.yaml");
        writeValues(values, broker.bootstrapServers(), net.hosts().subList(1, 5));
        RenderedChart chart = RenderedChart.render("cluster", values, Map.of());
        Files.writeString(work.resolve("rendered.yaml"), chart.yaml());
        JobSpec job = ChartInvariantsTest.job(chart, Map.of());
        assertThat(job)
            .as("the chart carries the scenario job")
            .isEqualTo(JobSpecLoader.parse(TestCluster.jobYaml(NAME), Map.of()));
        Dockerfile image = Dockerfile.read(Repo.root().resolve("Dockerfile"));

        // when every pod starts as the chart says
        Map<HostProcess, String> readiness = new LinkedHashMap<>();
        Map<HostProcess, String> liveness = new LinkedHashMap<>();
        for (String component : List.of("node", "coordinator")) {
          StatefulSet set = chart.statefulSet(component);
          List<NetworkHosts.Host> hosts = component.equals("node") ? nodeHosts : coordinatorHosts;
          assertThat(set.getSpec().getReplicas()).isEqualTo(hosts.size());
          Container c = set.getSpec().getTemplate().getSpec().getContainers().get(0);
          for (int i = 0; i < hosts.size(); i++) {
            NetworkHosts.Host host = hosts.get(i);
            HostProcess pod =
                LocalPod.of(set, i, host.address(), chart.config(), image, work.resolve("pods"))
                    .start(host.exec());
            pods.add(pod);
            readiness.put(pod, probeUrl(host, c, c.getReadinessProbe()));
            liveness.put(pod, probeUrl(host, c, c.getLivenessProbe()));
          }
        }
        // then each answers its rendered probes on the port it opened
        readiness.forEach((pod, url) -> TestCluster.awaitOk(url, pod));
        liveness.forEach(
            (pod, url) ->
                assertThat(TestCluster.httpStatus(url)).as("%s live", pod).isEqualTo(200));
        for (Map.Entry<HostProcess, String> e : readiness.entrySet()) {
          String metrics = TestCluster.httpBody(e.getValue().replace("/health/ready", "/metrics"));
          assertThat(metrics).as("%s /metrics", e.getKey()).contains("skewer_");
        }

        // and a workload comes out exact
        ExactReference reference = TestCluster.reference(job);
        try (LoadRun load =
            LoadRun.start(
                broker.bootstrapServers(),
                job,
                TestCluster.workload(NAME, EVENTS, 7),
                reference,
                10_000)) {
          LoadSummary sent = load.awaitEnd(Duration.ofMinutes(3));
          assertThat(sent.sent()).isEqualTo(EVENTS);
          assertThat(sent.failed()).isZero();
        }
        assertThat(reference.late()).as("the workload exercises the late path").isNotEmpty();
        assertThat(reference.dlq()).as("the workload exercises the DLQ").isNotEmpty();
        Verdict verdict =
            Verdict.of(
                broker.bootstrapServers(),
                reference,
                job.topics().results(),
                job.topics().late(),
                job.topics().dlq());
        System.err.println("chart-driven cluster: " + verdict.summary() + " | logs " + work);
        assertThat(verdict.results().problems()).as(verdict.summary()).isEmpty();
        assertThat(verdict.results().resultCount()).isEqualTo(reference.totalCount());
        assertThat(verdict.late().ok()).as(verdict.late().summary()).isTrue();
        assertThat(verdict.dlq().ok()).as(verdict.dlq().summary()).isTrue();

        // a pod deleted as the kubelet deletes it: SIGTERM, SIGKILL after the grace period
        StatefulSet nodes = chart.statefulSet("node");
        long grace = nodes.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds();
        HostProcess stopped = pods.get(1);
        assertThat(stopped.stop(Duration.ofSeconds(grace)))
            .as(
                "%s exits by itself within terminationGracePeriodSeconds=%d%s",
                stopped, grace, stopped.tail(20))
            .isTrue();
      }
    }
  }

  /** The value set for these hosts: members by address, the scenario job, fast failover. */
  static void writeValues(Path file, String bootstrap, List<NetworkHosts.Host> members)
      throws IOException {
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
    @SuppressWarnings("unchecked")
    Map<String, Object> job = yaml.readValue(TestCluster.jobYaml(NAME), Map.class);
    @SuppressWarnings("unchecked")
    Map<String, Object> defaults =
        yaml.readValue(Repo.chart().resolve("values.yaml").toFile(), Map.class);
    @SuppressWarnings("unchecked")
    Map<String, Object> defaultJob = (Map<String, Object>) defaults.get("job");
    Map<String, Object> values = new LinkedHashMap<>();
    values.put(
        "kafka", Map.of("bootstrap", bootstrap, "properties", TestCluster.kafkaProperties()));
    values.put(
        "cluster",
        Map.of(
            "discovery",
            "members",
            "members",
            members.stream().map(h -> h.address() + ":5701").toList()));
    values.put("logFormat", "text");
    values.put("node", Map.of("replicas", 2));
    values.put("coordinator", Map.of("replicas", 2));
    values.put("job", overlay(defaultJob, job));
    yaml.writeValue(file.toFile(), values);
  }

  /**
   * {@code wanted} with an explicit null for every key the chart's defaults have and {@code wanted}
   * lacks (a null value deletes a default in Helm, so the job loader's default applies).
   */
  @SuppressWarnings("unchecked")
  static Map<String, Object> overlay(Map<String, Object> defaults, Map<String, Object> wanted) {
    Map<String, Object> out = new LinkedHashMap<>(wanted);
    for (Map.Entry<String, Object> d : defaults.entrySet()) {
      Object w = wanted.get(d.getKey());
      if (w == null) {
        if (!d.getKey().equals("guarantee")) {
          out.put(d.getKey(), null);
        }
      } else if (w instanceof Map && d.getValue() instanceof Map) {
        out.put(d.getKey(), overlay((Map<String, Object>) d.getValue(), (Map<String, Object>) w));
      }
    }
    return out;
  }

  static String probeUrl(NetworkHosts.Host host, Container c, Probe probe) {
    IntOrString port = probe.getHttpGet().getPort();
    int number =
        port.getStrVal() != null
            ? ChartInvariantsTest.portNumber(c, port.getStrVal())
            : port.getIntVal();
    return "http://" + host.address() + ":" + number + probe.getHttpGet().getPath();
  }
}

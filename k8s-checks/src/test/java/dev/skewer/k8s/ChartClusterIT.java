package dev.skewer.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
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
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The chart drives a real cluster: {@code helm template} with a value set for this machine, then
 * every pod of the rendered node and coordinator StatefulSets started as a local process exactly as
 * the chart describes it ({@link LocalPod}: the image's entrypoint on the product jar, the
 * container's args and environment, its ConfigMap files) — each pod on its own network host ({@link
 * NetworkHosts}, its address as {@code POD_IP}), Hazelcast members found by the chart's member
 * list, a real Kafka broker on another host.
 *
 * <p>Every pod must answer its rendered readiness and liveness probes and {@code /metrics} on the
 * port the probes name, from its pod IP and from its own loopback (where {@code kubectl
 * port-forward} connects); the coordinators must see every pod as a Hazelcast member named after
 * it. Then a workload with disorder, a hot key, late, malformed and future events must come out
 * exact; the chart's reconcile CronJob, run as its pod, must find the results matching; and a node
 * stopped as a kubelet stops it (SIGTERM) must exit within its termination grace period.
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
    // the chart's default coordinator count: the shape a user installs. A chart with one
    // coordinator differs only in that count and its member list, whose rendering
    // ChartInvariantsTest checks (its minimal value set); one coordinator's processes run in most
    // crossprocess scenarios
    int coordinators = RenderedChart.defaults().statefulSet("coordinator").getSpec().getReplicas();
    Path work = TestCluster.workDir("chart-cluster", NAME + "-" + coordinators);
    Files.createDirectories(work);
    List<HostProcess> pods = new ArrayList<>();
    // h1: the broker (and the reconcile run); h2, h3: nodes; h4, h5: coordinators
    try (NetworkHosts net = NetworkHosts.create(3 + coordinators)) {
      NetworkHosts.Host brokerHost = net.host(1);
      try (KafkaBrokerProcess broker =
              KafkaBrokerProcess.start(
                  work.resolve("broker"), brokerHost.address(), 9092, brokerHost.exec());
          // closed first: every pod is killed before the broker and the hosts go
          HostProcess.Group group = new HostProcess.Group(pods)) {
        // given the chart rendered for these hosts
        List<NetworkHosts.Host> nodeHosts = List.of(net.host(2), net.host(3));
        List<NetworkHosts.Host> coordinatorHosts = net.hosts().subList(3, 3 + coordinators);
        Path values = work.resolve("values.yaml");
        writeValues(
            values,
            broker.bootstrapServers(),
            net.hosts().subList(1, 3 + coordinators),
            coordinators);
        RenderedChart chart = RenderedChart.render("cluster", values, Map.of());
        Files.writeString(work.resolve("rendered.yaml"), chart.yaml());
        JobSpec job = ChartInvariantsTest.job(chart, Map.of());
        assertThat(job)
            .as("the chart carries the scenario job")
            .isEqualTo(JobSpecLoader.parse(TestCluster.jobYaml(NAME), Map.of()));
        Dockerfile image = Dockerfile.read(Repo.root().resolve("Dockerfile"));

        // when every pod starts as the chart says
        List<RunningPod> running = new ArrayList<>();
        for (String component : List.of("node", "coordinator")) {
          StatefulSet set = chart.statefulSet(component);
          List<NetworkHosts.Host> hosts = component.equals("node") ? nodeHosts : coordinatorHosts;
          assertThat(set.getSpec().getReplicas()).isEqualTo(hosts.size());
          Container c = set.getSpec().getTemplate().getSpec().getContainers().get(0);
          for (int i = 0; i < hosts.size(); i++) {
            NetworkHosts.Host host = hosts.get(i);
            LocalPod pod =
                LocalPod.of(set, i, host.address(), chart.config(), image, work.resolve("pods"));
            HostProcess process = pod.start(host.exec());
            pods.add(process);
            running.add(new RunningPod(pod.name(), component, host, c, process));
          }
        }

        // then each answers its rendered probes and /metrics on the port they name
        for (RunningPod p : running) {
          TestCluster.awaitOk(p.url(p.container().getReadinessProbe()), p.process());
        }
        for (RunningPod p : running) {
          TestCluster.awaitOk(p.url(p.container().getLivenessProbe()), p.process());
          TestCluster.awaitOk(p.url(p.container().getStartupProbe()), p.process());
          String metrics = TestCluster.httpBody(p.metricsUrl());
          assertThat(metrics)
              .as("%s /metrics", p.name())
              .contains("# TYPE ")
              .contains("skewer_hazelcast_members{" + p.component() + "=\"" + p.name() + "\"");
          // kubectl port-forward connects to the pod's loopback
          await()
              .atMost(Duration.ofSeconds(60))
              .alias(p.name() + " /health/live on the pod's 127.0.0.1 (port-forward)")
              .until(() -> p.host().loopbackStatus(p.httpPort(), "/health/live") == 200);
        }
        // with the image's JVM options, Java writes no warning lines of its own into a pod's
        // log (Hazelcast's members are up, so it has used sun.misc.Unsafe): they are not log
        // lines, and break the JSON log stream of the chart's default log format
        for (RunningPod p : running) {
          assertThat(p.process().logSinceStart().lines().filter(l -> l.startsWith("WARNING:")))
              .as("%s: Java's own warning lines", p.name())
              .isEmpty();
        }
        // one Hazelcast cluster whose members are the pods, by name and pod IP
        Set<String> podNames = new TreeSet<>();
        running.forEach(p -> podNames.add(p.name()));
        for (RunningPod p : running) {
          if (p.component().equals("coordinator")) {
            TestCluster.awaitMembers(p.apiUrl("/api/v1/cluster"), podNames, running.size());
            JsonNode cluster =
                new ObjectMapper().readTree(TestCluster.httpBody(p.apiUrl("/api/v1/cluster")));
            for (JsonNode m : cluster.path("members")) {
              RunningPod member = byName(running, m.path("name").asText());
              assertThat(m.path("address").asText()).contains(member.host().address() + "]:");
              assertThat(m.path("role").asText()).isEqualTo(member.component());
            }
          }
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
        // the input ends by silence, not with EndOfInput's markers: the reconcile CronJob below
        // checks the whole events topic, and the markers' own window would still be open
        assertThat(reference.late()).as("the workload exercises the late path").isNotEmpty();
        assertThat(reference.dlq()).as("the workload exercises the DLQ").isNotEmpty();
        Verdict verdict =
            Verdict.of(
                broker.bootstrapServers(),
                reference,
                job.topics().results(),
                job.topics().late(),
                job.topics().dlq());
        System.err.println(
            "chart-driven cluster ("
                + coordinators
                + " coordinators): "
                + verdict.summary()
                + " | logs "
                + work);
        verdict.assertExact(reference);

        // every node read its share, as its /metrics says; every pod still ready
        long read = 0;
        List<String> samples = new ArrayList<>();
        for (RunningPod p : running) {
          TestCluster.awaitOk(p.url(p.container().getReadinessProbe()), p.process());
          if (p.component().equals("node")) {
            String body = TestCluster.httpBody(p.metricsUrl());
            read += TestCluster.metric(body, "skewer_events_in_total");
            body.lines().filter(l -> l.startsWith("skewer_events_in")).forEach(samples::add);
          }
        }
        assertThat(read)
            .as("events read by the nodes (replays count again): %s", samples)
            .isGreaterThanOrEqualTo(EVENTS);

        // the guide's `kubectl exec <coordinator> -- java -Xmx128m -jar ... results`: the pod's
        // environment is all it needs
        RunningPod coordinator =
            running.stream()
                .filter(p -> p.component().equals("coordinator"))
                .findFirst()
                .orElseThrow();
        List<String> exec = new ArrayList<>(coordinator.host().exec());
        exec.addAll(
            List.of(
                coordinator.process().command().get(coordinator.host().exec().size()),
                "-Xmx128m",
                "-jar",
                Repo.productJar().toString(),
                "results",
                "--limit",
                "5"));
        HostProcess results =
            HostProcess.start(
                coordinator.name() + "-exec-results",
                exec,
                coordinator.process().environment(),
                work.resolve("pods").resolve(coordinator.name()).resolve("exec-results.log"));
        pods.add(results);
        assertThat(results.waitFor(Duration.ofMinutes(2))).as("skewer results finishes").isTrue();
        assertThat(results.exitValue())
            .as("skewer results in the coordinator pod (0 = results found)%s", results.tail(20))
            .isZero();

        // the chart's reconcile CronJob, run once as its pod: the results match the input
        CronJob cron = chart.reconcile().orElseThrow();
        PodSpec cronPod = cron.getSpec().getJobTemplate().getSpec().getTemplate().getSpec();
        HostProcess reconcile =
            LocalPod.of(
                    cron.getMetadata().getName() + "-run",
                    cronPod,
                    brokerHost.address(),
                    chart.config(),
                    image,
                    work.resolve("pods"))
                .start(brokerHost.exec());
        pods.add(reconcile);
        assertThat(reconcile.waitFor(Duration.ofMinutes(3)))
            .as("reconcile finishes%s", reconcile.tail(20))
            .isTrue();
        String log = reconcile.logSinceStart();
        System.err.println("chart-driven cluster: reconcile " + summaryLine(log));
        assertThat(reconcile.exitValue())
            .as("reconcile exit code (0 = match)%s", reconcile.tail(30))
            .isZero();
        assertThat(log)
            .as("the JSON report on standard output")
            .containsPattern("\"exit_code\"\\s*:\\s*0\\b");

        // a pod deleted as the kubelet deletes it: SIGTERM, SIGKILL after the grace period
        StatefulSet nodes = chart.statefulSet("node");
        long grace = nodes.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds();
        HostProcess stopped = pods.get(1);
        long startNs = System.nanoTime();
        assertThat(stopped.stop(Duration.ofSeconds(grace)))
            .as(
                "%s exits by itself within terminationGracePeriodSeconds=%d%s",
                stopped, grace, stopped.tail(20))
            .isTrue();
        System.err.printf(
            "chart-driven cluster: %s exited %d ms after SIGTERM (grace %d s)%n",
            stopped.name(), (System.nanoTime() - startNs) / 1_000_000, grace);
      }
    }
  }

  /** One started pod and where to reach it. */
  record RunningPod(
      String name,
      String component,
      NetworkHosts.Host host,
      Container container,
      HostProcess process) {

    /** The URL a probe's {@code httpGet} names, on the pod IP. */
    String url(Probe probe) {
      return "http://" + host.address() + ":" + port(probe) + probe.getHttpGet().getPath();
    }

    /** {@code /metrics} on the port the readiness probe names. */
    String metricsUrl() {
      return "http://" + host.address() + ":" + httpPort() + "/metrics";
    }

    String apiUrl(String path) {
      return "http://" + host.address() + ":" + httpPort() + path;
    }

    int httpPort() {
      return port(container.getReadinessProbe());
    }

    private int port(Probe probe) {
      IntOrString port = probe.getHttpGet().getPort();
      return port.getStrVal() != null
          ? ChartInvariantsTest.portNumber(container, port.getStrVal())
          : port.getIntVal();
    }
  }

  private static RunningPod byName(List<RunningPod> pods, String name) {
    return pods.stream()
        .filter(p -> p.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no pod named " + name));
  }

  private static String summaryLine(String log) {
    Matcher m = Pattern.compile("(?m)^RESULT: .*$").matcher(log);
    return m.find() ? m.group() : "(no RESULT line)";
  }

  /**
   * The value set for these hosts: members by address, the scenario job, fast failover, modest
   * memory limits, and the reconcile CronJob over the last 15 minutes.
   */
  static void writeValues(
      Path file, String bootstrap, List<NetworkHosts.Host> members, int coordinators)
      throws IOException {
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
    @SuppressWarnings("unchecked")
    Map<String, Object> job = yaml.readValue(TestCluster.jobYaml(NAME), Map.class);
    @SuppressWarnings("unchecked")
    Map<String, Object> defaults =
        yaml.readValue(Repo.chart().resolve("values.yaml").toFile(), Map.class);
    @SuppressWarnings("unchecked")
    Map<String, Object> defaultJob = (Map<String, Object>) defaults.get("job");
    Map<String, Object> memory =
        Map.of(
            "requests", Map.of("cpu", "100m", "memory", "640Mi"),
            "limits", Map.of("memory", "640Mi"));
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
    values.put("node", Map.of("replicas", 2, "resources", memory));
    values.put("coordinator", Map.of("replicas", coordinators, "resources", memory));
    values.put("job", overlay(defaultJob, job));
    values.put(
        "reconcile",
        Map.of(
            "enabled",
            true,
            "from",
            "now-15m",
            "to",
            "now",
            "quiet",
            true,
            "memoryBudget",
            "64m",
            "resources",
            Map.of(
                "requests", Map.of("cpu", "100m", "memory", "512Mi"),
                "limits", Map.of("memory", "512Mi"))));
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
        out.put(d.getKey(), null);
      } else if (w instanceof Map && d.getValue() instanceof Map) {
        out.put(d.getKey(), overlay((Map<String, Object>) d.getValue(), (Map<String, Object>) w));
      }
    }
    return out;
  }
}

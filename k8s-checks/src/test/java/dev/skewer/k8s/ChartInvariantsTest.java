package dev.skewer.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import dev.skewer.stage.StageSettings;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Invariants of the rendered chart, for the default values and every value set: what the containers
 * are told matches what the binary reads (its picocli model, its job loader), probes hit ports the
 * process opens, files the process is pointed at are mounted, secrets only ever arrive as mounted
 * files, and the objects refer to each other consistently.
 */
class ChartInvariantsTest {

  static final CliModel CLI = CliModel.ofSkewer();

  /** Environment variables read by the JVM itself (the image's {@code java} launcher). */
  static final Set<String> JVM_ENVIRONMENT = Set.of("JDK_JAVA_OPTIONS");

  static Stream<RenderedChart> charts() {
    return Stream.of(
        RenderedChart.defaults(),
        RenderedChart.valueSet("secured"),
        RenderedChart.valueSet("everything"),
        RenderedChart.valueSet("minimal"),
        RenderedChart.valueSet("sessions"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("charts")
  void shouldPassOnlyArgumentsTheBinaryHas(RenderedChart chart) {
    for (Container c : chart.containers()) {
      List<String> args = c.getArgs();
      assertThat(args).as("%s %s: args", chart.valueSet(), c.getName()).isNotEmpty();
      assertThat(c.getCommand()).as("the image's entrypoint runs the binary").isNullOrEmpty();
      CliModel.Command command = CLI.command(args.get(0));
      for (String arg : args.subList(1, args.size())) {
        if (arg.startsWith("-")) {
          String option = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
          assertThat(command.options())
              .as(
                  "%s %s: option %s of skewer %s",
                  chart.valueSet(), c.getName(), option, command.name())
              .contains(option);
        }
      }
      // and the binary parses the whole command line with the container's environment
      assertThatCode(() -> CliModel.parse(args, podEnv(c)))
          .as("%s %s: skewer %s", chart.valueSet(), c.getName(), args)
          .doesNotThrowAnyException();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("charts")
  void shouldSetOnlyEnvironmentTheBinaryReads(RenderedChart chart) {
    JobSpec job = job(chart, Map.of());
    for (Container c : chart.containers()) {
      CliModel.Command command = CLI.command(c.getArgs().get(0));
      for (EnvVar e : c.getEnv()) {
        String name = e.getName();
        boolean cli = command.environment().contains(name);
        boolean jvm = JVM_ENVIRONMENT.contains(name);
        // a SKEWER_<FIELD> override is read by the job loader: it must change the parsed job
        boolean jobOverride =
            e.getValue() != null && !job(chart, Map.of(name, e.getValue())).equals(job);
        assertThat(cli || jvm || jobOverride)
            .as(
                "%s %s: env %s is read by neither skewer %s (its options read %s), the JVM %s,"
                    + " nor the job loader",
                chart.valueSet(),
                c.getName(),
                name,
                command.name(),
                command.environment(),
                JVM_ENVIRONMENT)
            .isTrue();
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("charts")
  void shouldMeanByEachVariableWhatTheFlagMeans(RenderedChart chart) {
    for (Container c : chart.containers()) {
      CliModel.Command command = CLI.command(c.getArgs().get(0));
      Map<String, String> env = podEnv(c);
      assertThat(env.keySet())
          .as("%s %s sets variables of options", chart.valueSet(), c.getName())
          .containsAnyElementsOf(command.variables().keySet());
      // the binary's options with the variables set equal those with the same values as flags
      Map<String, Object> fromEnv = CliModel.parse(c.getArgs(), env);
      Map<String, Object> fromFlags =
          CliModel.parse(CliModel.asFlags(command, c.getArgs(), env), Map.of());
      assertThat(fromEnv)
          .as(
              "%s %s: skewer %s from the environment vs. flags",
              chart.valueSet(), c.getName(), command.name())
          .isEqualTo(fromFlags);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("charts")
  void shouldListenEverywhereInThePodAndAdvertiseThePodIp(RenderedChart chart) {
    for (StatefulSet s : chart.all(StatefulSet.class)) {
      Container c = s.getSpec().getTemplate().getSpec().getContainers().get(0);
      Map<String, Object> options = CliModel.parse(c.getArgs(), podEnv(c));
      // kubectl port-forward connects to the pod's loopback, probes and members to its IP
      assertThat(options.get("--bind-address"))
          .as("%s: HTTP and Hazelcast on every interface", s.getMetadata().getName())
          .isEqualTo("0.0.0.0");
      assertThat(options.get("--public-address"))
          .as("%s: the member advertises the pod IP", s.getMetadata().getName())
          .isEqualTo(POD_IP);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("charts")
  void shouldGiveTheFinalCheckpointsTimeBeforeTheKill(RenderedChart chart) {
    // the runtime waits up to DEFAULT_REVOKE_TIMEOUT for final checkpoints; closing the clients
    // and leaving Hazelcast take a few seconds more
    long floor = StageSettings.DEFAULT_REVOKE_TIMEOUT.plusSeconds(15).toSeconds();
    for (StatefulSet s : chart.all(StatefulSet.class)) {
      assertThat(s.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds())
          .as("%s: terminationGracePeriodSeconds", s.getMetadata().getName())
          .isGreaterThanOrEqualTo(floor);
    }
    assertThatThrownBy(
            () ->
                RenderedChart.template(
                    null, Map.of("coordinator.terminationGracePeriodSeconds", floor - 1)))
        .as("the schema refuses less than %d s", floor)
        .hasMessageContaining("terminationGracePeriodSeconds");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("charts")
  void shouldGiveAJobThatTheJobLoaderAccepts(RenderedChart chart) {
    JobSpec plain = job(chart, Map.of());
    assertThat(plain.name()).isNotBlank();
    for (Container c : chart.containers()) {
      // with the container's own environment (job overrides included)
      JobSpec withEnv = job(chart, env(c));
      assertThat(withEnv.topics()).isEqualTo(plain.topics());
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("charts")
  void shouldProbeTheHttpPortTheProcessOpens(RenderedChart chart) {
    for (StatefulSet s : chart.all(StatefulSet.class)) {
      Container c = s.getSpec().getTemplate().getSpec().getContainers().get(0);
      Map<String, String> env = env(c);
      int http = Integer.parseInt(env.get("SKEWER_HTTP_PORT"));
      int hazelcast = Integer.parseInt(env.get("SKEWER_HZ_PORT"));
      assertThat(portNumber(c, "http"))
          .as("%s: http port", s.getMetadata().getName())
          .isEqualTo(http);
      assertThat(portNumber(c, "hazelcast")).isEqualTo(hazelcast);
      assertProbe(c, c.getStartupProbe(), "/health/live", http);
      assertProbe(c, c.getLivenessProbe(), "/health/live", http);
      assertProbe(c, c.getReadinessProbe(), "/health/ready", http);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("charts")
  void shouldMountEveryFileTheProcessIsPointedAt(RenderedChart chart) {
    ConfigMap config = chart.config();
    for (PodSpec pod : chart.podSpecs()) {
      for (Container c : pod.getContainers()) {
        Map<String, String> env = env(c);
        for (String variable : List.of("SKEWER_JOB", "SKEWER_KAFKA_CONFIG")) {
          if (!env.containsKey(variable) && variable.equals("SKEWER_JOB")) {
            continue; // the load generator reads no job
          }
          Path file = Path.of(env.get(variable));
          VolumeMount mount = mountOf(c, file);
          Volume volume = volume(pod, mount.getName());
          assertThat(volume.getConfigMap()).as("%s is in a ConfigMap", file).isNotNull();
          assertThat(volume.getConfigMap().getName()).isEqualTo(config.getMetadata().getName());
          String key = Path.of(mount.getMountPath()).relativize(file).toString();
          assertThat(config.getData()).as("ConfigMap key of %s", file).containsKey(key);
        }
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("charts")
  void shouldPassSecretsOnlyAsMountedFiles(RenderedChart chart) {
    String properties = chart.config().getData().get("kafka.properties");
    for (String line : properties.lines().collect(Collectors.toList())) {
      String key = line.contains("=") ? line.substring(0, line.indexOf('=')) : "";
      if (key.equals("sasl.jaas.config") || key.endsWith(".password")) {
        assertThat(line.substring(key.length() + 1))
            .as("%s: %s is a reference to a mounted Secret", chart.valueSet(), key)
            .matches("\\$\\{dir:[^:}]+:[^}]+}");
      }
    }
    for (PodSpec pod : chart.podSpecs()) {
      for (Container c : pod.getContainers()) {
        assertThat(c.getEnv())
            .as("no Secret reaches the environment")
            .allMatch(e -> e.getValueFrom() == null || e.getValueFrom().getSecretKeyRef() == null);
        assertThat(c.getEnvFrom()).isNullOrEmpty();
      }
      // every ${dir:PATH:KEY} resolves to a Secret volume mounted at PATH that projects KEY
      var refs = java.util.regex.Pattern.compile("\\$\\{dir:([^:}]+):([^}]+)}").matcher(properties);
      while (refs.find()) {
        Container c = pod.getContainers().get(0);
        VolumeMount mount = mountAt(c, refs.group(1));
        Volume volume = volume(pod, mount.getName());
        assertThat(volume.getSecret()).as("%s is a Secret volume", refs.group(1)).isNotNull();
        assertThat(volume.getSecret().getItems())
            .anyMatch(i -> i.getKey().equals(refs.group(2)) && i.getPath().equals(refs.group(2)));
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("charts")
  void shouldRunNonRootOnAReadOnlyRootFileSystem(RenderedChart chart) {
    for (PodSpec pod : chart.podSpecs()) {
      assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
      assertThat(pod.getSecurityContext().getRunAsUser()).isPositive();
      assertThat(pod.getAutomountServiceAccountToken()).isFalse();
      for (Container c : pod.getContainers()) {
        SecurityContext sc = c.getSecurityContext();
        assertThat(sc.getReadOnlyRootFilesystem()).isTrue();
        assertThat(sc.getAllowPrivilegeEscalation()).isFalse();
        assertThat(sc.getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(sc.getCapabilities().getAdd()).isNullOrEmpty();
        // the one writable place, and the JVM's temp dir is there
        VolumeMount tmp = mountAt(c, "/tmp");
        assertThat(volume(pod, tmp.getName()).getEmptyDir()).isNotNull();
        String jvm = env(c).get("JDK_JAVA_OPTIONS");
        assertThat(jvm).contains("-Djava.io.tmpdir=/tmp").contains("-XX:MaxRAMPercentage=");
        assertThat(jvm).doesNotContain("-Xmx").doesNotContain("-Xms");
        Quantity memory = c.getResources().getLimits().get("memory");
        assertThat(memory).as("a memory limit: the heap is a share of it").isNotNull();
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("charts")
  void shouldFormOneHazelcastClusterThroughTheHeadlessService(RenderedChart chart) {
    Service headless = chart.get(Service.class, RenderedChart.RELEASE + "-skewer-hazelcast");
    assertThat(headless.getSpec().getClusterIP()).isEqualTo("None");
    assertThat(headless.getSpec().getPublishNotReadyAddresses()).isTrue();
    String dns =
        headless.getMetadata().getName() + "." + RenderedChart.NAMESPACE + ".svc.cluster.local";
    Set<String> clusterNames = new HashSet<>();
    for (StatefulSet s : chart.all(StatefulSet.class)) {
      assertThat(s.getSpec().getServiceName()).isEqualTo(headless.getMetadata().getName());
      Map<String, String> podLabels = s.getSpec().getTemplate().getMetadata().getLabels();
      assertThat(podLabels).containsAllEntriesOf(headless.getSpec().getSelector());
      assertThat(podLabels).containsAllEntriesOf(s.getSpec().getSelector().getMatchLabels());
      Container c = s.getSpec().getTemplate().getSpec().getContainers().get(0);
      Map<String, String> env = env(c);
      if (env.containsKey("SKEWER_HZ_K8S_SERVICE_DNS")) {
        assertThat(env.get("SKEWER_HZ_K8S_SERVICE_DNS")).isEqualTo(dns);
      } else {
        assertThat(env.get("SKEWER_HZ_MEMBERS")).isNotBlank();
      }
      assertThat(headless.getSpec().getPorts())
          .anyMatch(p -> p.getPort() == portNumber(c, "hazelcast"));
      clusterNames.add(env.getOrDefault("SKEWER_HZ_CLUSTER_NAME", "<default>"));
      assertThat(s.getSpec().getPodManagementPolicy()).isEqualTo("Parallel");
    }
    assertThat(clusterNames).as("nodes and coordinators in one cluster").hasSize(1);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("charts")
  void shouldBudgetOneDisruptionPerStage(RenderedChart chart) {
    for (PodDisruptionBudget pdb : chart.all(PodDisruptionBudget.class)) {
      assertThat(pdb.getSpec().getMaxUnavailable()).isEqualTo(new IntOrString(1));
      List<StatefulSet> selected =
          chart.all(StatefulSet.class).stream()
              .filter(
                  s ->
                      s.getSpec()
                          .getTemplate()
                          .getMetadata()
                          .getLabels()
                          .entrySet()
                          .containsAll(pdb.getSpec().getSelector().getMatchLabels().entrySet()))
              .collect(Collectors.toList());
      assertThat(selected).as("%s selects one StatefulSet", pdb.getMetadata().getName()).hasSize(1);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("charts")
  void shouldRouteTheApiToTheCoordinators(RenderedChart chart) {
    Service api = chart.get(Service.class, RenderedChart.RELEASE + "-skewer");
    StatefulSet coordinators = chart.statefulSet("coordinator");
    assertThat(coordinators.getSpec().getTemplate().getMetadata().getLabels())
        .containsAllEntriesOf(api.getSpec().getSelector());
    for (ServicePort p : api.getSpec().getPorts()) {
      Container c = coordinators.getSpec().getTemplate().getSpec().getContainers().get(0);
      portNumber(c, p.getTargetPort().getStrVal());
    }
    for (Ingress ingress : chart.all(Ingress.class)) {
      var backend = ingress.getSpec().getRules().get(0).getHttp().getPaths().get(0).getBackend();
      assertThat(backend.getService().getName()).isEqualTo(api.getMetadata().getName());
      assertThat(api.getSpec().getPorts())
          .anyMatch(p -> p.getName().equals(backend.getService().getPort().getName()));
    }
    for (ServiceMonitor monitor : chart.all(ServiceMonitor.class)) {
      List<Service> scraped =
          chart.all(Service.class).stream()
              .filter(
                  s ->
                      s.getMetadata()
                          .getLabels()
                          .entrySet()
                          .containsAll(monitor.getSpec().getSelector().getMatchLabels().entrySet()))
              .collect(Collectors.toList());
      assertThat(scraped).as("the ServiceMonitor scrapes the headless Service only").hasSize(1);
      assertThat(scraped.get(0).getSpec().getClusterIP()).isEqualTo("None");
      String port = monitor.getSpec().getEndpoints().get(0).getPort();
      assertThat(scraped.get(0).getSpec().getPorts()).anyMatch(p -> p.getName().equals(port));
      assertThat(monitor.getSpec().getEndpoints().get(0).getPath()).isEqualTo("/metrics");
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("charts")
  void shouldLetThroughWhatTheClusterNeeds(RenderedChart chart) {
    for (NetworkPolicy policy : chart.all(NetworkPolicy.class)) {
      Set<Object> egressPorts = new HashSet<>();
      policy
          .getSpec()
          .getEgress()
          .forEach(r -> r.getPorts().forEach(p -> egressPorts.add(port(p))));
      Set<Object> ingressPorts = new HashSet<>();
      policy
          .getSpec()
          .getIngress()
          .forEach(r -> r.getPorts().forEach(p -> ingressPorts.add(port(p))));
      assertThat(ingressPorts).contains("hazelcast", "http");
      for (StatefulSet s : chart.all(StatefulSet.class)) {
        Container c = s.getSpec().getTemplate().getSpec().getContainers().get(0);
        Map<String, String> env = env(c);
        assertThat(egressPorts).contains(Integer.parseInt(env.get("SKEWER_HZ_PORT")), 53);
        for (String server : env.get("SKEWER_BOOTSTRAP").split(",")) {
          int port = Integer.parseInt(server.substring(server.lastIndexOf(':') + 1));
          assertThat(egressPorts).as("egress to Kafka at %s", server).contains(port);
        }
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("charts")
  void shouldScaleNodesWithinTheEventPartitions(RenderedChart chart) {
    JobSpec job = job(chart, Map.of());
    StatefulSet nodes = chart.statefulSet("node");
    var autoscalers = chart.all(HorizontalPodAutoscaler.class);
    if (autoscalers.isEmpty()) {
      assertThat(nodes.getSpec().getReplicas()).isBetween(1, job.topics().eventsPartitions());
    } else {
      HorizontalPodAutoscaler hpa = autoscalers.get(0);
      assertThat(hpa.getSpec().getScaleTargetRef().getKind()).isEqualTo("StatefulSet");
      assertThat(hpa.getSpec().getScaleTargetRef().getName())
          .isEqualTo(nodes.getMetadata().getName());
      assertThat(hpa.getSpec().getMaxReplicas())
          .isLessThanOrEqualTo(job.topics().eventsPartitions());
      assertThat(nodes.getSpec().getReplicas()).as("the autoscaler owns replicas").isNull();
    }
    assertThat(chart.statefulSet("coordinator").getSpec().getReplicas())
        .isBetween(1, job.topics().partialsPartitions());
    for (Job loadgen : chart.all(Job.class)) {
      List<String> args =
          loadgen.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs();
      // numbers as the CLI parses them (Helm reads them as floats: not 2e+06)
      assertThat(args.get(args.indexOf("--rate") + 1)).matches("[0-9]+(\\.[0-9]+)?");
      assertThat(args.get(args.indexOf("--events") + 1)).matches("[0-9]+");
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("charts")
  void shouldGiveTheLoadGeneratorAJobThatReadsItsEvents(RenderedChart chart) throws Exception {
    for (Job loadgen : chart.all(Job.class)) {
      Container c = loadgen.getSpec().getTemplate().getSpec().getContainers().get(0);
      Map<String, String> env = podEnv(c);
      Map<String, Object> options = CliModel.parse(c.getArgs(), env);
      JobSpec job = job(chart, env);
      // the nodes' job file, and the topic it writes to is the job's events topic
      assertThat(env.get("SKEWER_JOB")).isEqualTo(podEnv(nodeContainer(chart)).get("SKEWER_JOB"));
      assertThat(options.get("--topic")).as("--topic: the job's events topic").isNull();
      // where loadgen's events carry key and time (its own constants) is where the job reads them
      assertThat(job.input().keyPointer()).isEqualTo(loadgenConstant("KEY_POINTER"));
      assertThat(job.input().timePointer()).isEqualTo(loadgenConstant("TIME_POINTER"));
    }
  }

  private static Container nodeContainer(RenderedChart chart) {
    return chart.statefulSet("node").getSpec().getTemplate().getSpec().getContainers().get(0);
  }

  private static String loadgenConstant(String name) throws Exception {
    java.lang.reflect.Field f = dev.skewer.launcher.cli.LoadgenCommand.class.getDeclaredField(name);
    f.setAccessible(true);
    return (String) f.get(null);
  }

  // --- helpers -------------------------------------------------------------------------------

  /** The ConfigMap's job, parsed by the project's job loader with {@code env} applied. */
  static JobSpec job(RenderedChart chart, Map<String, String> env) {
    return JobSpecLoader.parse(chart.config().getData().get("job.yaml"), env);
  }

  /** The pod IP {@link #podEnv} resolves {@code status.podIP} to. */
  static final String POD_IP = "10.1.2.3";

  /**
   * A container's environment as the process sees it: {@code fieldRef}s resolved ({@code
   * status.podIP} to {@link #POD_IP}) and {@code $(VAR)} references expanded as the kubelet does.
   */
  static Map<String, String> podEnv(Container c) {
    return LocalPod.environment(c.getEnv(), "pod-0", POD_IP);
  }

  /** A container's literal environment (fieldRef values as {@code <fieldPath>}). */
  static Map<String, String> env(Container c) {
    Map<String, String> env = new LinkedHashMap<>();
    for (EnvVar e : c.getEnv()) {
      env.put(
          e.getName(),
          e.getValue() != null
              ? e.getValue()
              : "<" + e.getValueFrom().getFieldRef().getFieldPath() + ">");
    }
    return env;
  }

  static int portNumber(Container c, String name) {
    return c.getPorts().stream()
        .filter(p -> name.equals(p.getName()))
        .map(ContainerPort::getContainerPort)
        .findFirst()
        .orElseThrow(() -> new AssertionError(c.getName() + " has no port named " + name));
  }

  private static void assertProbe(Container c, Probe probe, String path, int httpPort) {
    assertThat(probe).as("%s probe on %s", c.getName(), path).isNotNull();
    assertThat(probe.getHttpGet().getPath()).isEqualTo(path);
    IntOrString port = probe.getHttpGet().getPort();
    int number = port.getStrVal() != null ? portNumber(c, port.getStrVal()) : port.getIntVal();
    assertThat(number).as("%s probe %s port", c.getName(), path).isEqualTo(httpPort);
  }

  private static Object port(NetworkPolicyPort p) {
    IntOrString port = p.getPort();
    return port.getStrVal() != null ? port.getStrVal() : port.getIntVal();
  }

  /** The mount whose path is {@code file}'s directory or an ancestor of it. */
  static VolumeMount mountOf(Container c, Path file) {
    return c.getVolumeMounts().stream()
        .filter(m -> file.startsWith(Path.of(m.getMountPath())))
        .findFirst()
        .orElseThrow(() -> new AssertionError(c.getName() + ": nothing mounted at " + file));
  }

  static VolumeMount mountAt(Container c, String path) {
    return c.getVolumeMounts().stream()
        .filter(m -> m.getMountPath().equals(path))
        .findFirst()
        .orElseThrow(() -> new AssertionError(c.getName() + ": nothing mounted at " + path));
  }

  static Volume volume(PodSpec pod, String name) {
    return pod.getVolumes().stream()
        .filter(v -> v.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no volume " + name));
  }

  static List<String> lines(String text) {
    return new ArrayList<>(text.lines().collect(Collectors.toList()));
  }

  static boolean exists(Path p) {
    return Files.exists(p);
  }
}

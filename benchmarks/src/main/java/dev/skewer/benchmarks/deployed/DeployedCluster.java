package dev.skewer.benchmarks.deployed;

import dev.skewer.benchmarks.profile.ProfileSummary;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import dev.skewer.core.net.FreePorts;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A Skewer cluster as users deploy it: {@code skewer node} and {@code skewer coordinator}
 * processes, each its own JVM on the product jar with its Hazelcast member (all members listed on
 * loopback) and its HTTP port, everything else as shipped (checkpoints every 5 s, hot-key detection
 * on, topics provisioned by the processes).
 */
final class DeployedCluster {

  /** The example job of W1 inside the launcher jar. */
  static final String W1_RESOURCE = "/examples/w1.yaml";

  /** W1's events partitions (BENCHMARK.md). */
  static final int W1_PARTITIONS = 4;

  final JobSpec job;
  final Path jobFile;
  private final List<SkewerChild> nodes = new ArrayList<>();
  private final List<SkewerChild> coordinators = new ArrayList<>();

  private DeployedCluster(JobSpec job, Path jobFile) {
    this.job = job;
    this.jobFile = jobFile;
  }

  /**
   * Plans the processes (nothing is started).
   *
   * @param jar the product jar ({@code launcher/target/skewer.jar})
   * @param jvmOptions each child's JVM flags (heap, GC); {@code {name}} in a flag becomes the
   *     process's name (e.g. {@code -Xlog:gc:file=gc-{name}.log})
   * @param coordinatorJvmOptions a coordinator's JVM flags after {@code jvmOptions} (a later flag
   *     wins), as the chart's {@code coordinator.jvmOptions}; empty for none
   * @param extraArgs appended to every child's command line (e.g. {@code -X key=value})
   * @param coordinatorArgs appended to each coordinator's command line only, after {@code
   *     extraArgs} (e.g. {@code --hot-key-min-rate 10}); empty for none
   * @param eventsTopic the job's events topic; null = W1's ({@code events})
   * @param eventsPartitions the events topic's partitions in the job ({@link #W1_PARTITIONS} for
   *     W1's)
   * @param jfrDir where each child records a JFR profile ({@code <runLabel>-<name>.jfr}); null = no
   *     recording
   */
  static DeployedCluster plan(
      Path jar,
      List<String> jvmOptions,
      List<String> coordinatorJvmOptions,
      List<String> extraArgs,
      List<String> coordinatorArgs,
      String jobName,
      String eventsTopic,
      int eventsPartitions,
      String bootstrap,
      int nodeCount,
      int coordinatorCount,
      Path workDir,
      Path jfrDir,
      String runLabel) {
    Path jobFile = workDir.resolve(jobName + ".yaml");
    writeW1Job(jobName, eventsTopic, eventsPartitions, jobFile);
    DeployedCluster cluster = new DeployedCluster(JobSpecLoader.load(jobFile, Map.of()), jobFile);
    Path logDir = workDir.resolve("logs").resolve(runLabel);
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    int total = nodeCount + coordinatorCount;
    List<Integer> hzPorts = new ArrayList<>();
    for (int i = 0; i < total; i++) {
      hzPorts.add(FreePorts.next());
    }
    for (int i = 0; i < total; i++) {
      boolean node = i < nodeCount;
      String name = node ? "node-" + (i + 1) : "coordinator-" + (i - nodeCount + 1);
      int httpPort = FreePorts.next();
      List<String> command = new ArrayList<>();
      command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
      List<String> flags = new ArrayList<>(jvmOptions);
      if (!node) {
        flags.addAll(coordinatorJvmOptions);
      }
      for (String flag : flags) {
        command.add(flag.replace("{name}", name));
      }
      if (jfrDir != null) {
        command.add(
            "-XX:StartFlightRecording=settings=profile,"
                + ProfileSummary.EVERY_COMPILATION
                + ",dumponexit=true,filename="
                + jfrDir.resolve(runLabel + "-" + name + ".jfr"));
      }
      command.addAll(
          List.of(
              "-jar",
              jar.toString(),
              node ? "node" : "coordinator",
              "--job",
              jobFile.toString(),
              "--bootstrap",
              bootstrap,
              "--id",
              name,
              "--http-port",
              Integer.toString(httpPort),
              "--hz-port",
              Integer.toString(hzPorts.get(i))));
      for (int j = 0; j < total; j++) {
        if (j != i) {
          command.add("--hz-member");
          command.add("127.0.0.1:" + hzPorts.get(j));
        }
      }
      command.addAll(extraArgs);
      if (!node) {
        command.addAll(coordinatorArgs);
      }
      SkewerChild child = new SkewerChild(name, command, httpPort, hzPorts.get(i), logDir, http);
      (node ? cluster.nodes : cluster.coordinators).add(child);
    }
    return cluster;
  }

  /** Nodes first, then coordinators. */
  List<SkewerChild> all() {
    List<SkewerChild> all = new ArrayList<>(nodes);
    all.addAll(coordinators);
    return all;
  }

  List<SkewerChild> nodes() {
    return nodes;
  }

  /** Starts every process, one right after the other. */
  void launch() {
    all().forEach(SkewerChild::launch);
  }

  /** Asks every process not yet ready; true when all are. */
  boolean pollReady() {
    boolean all = true;
    for (SkewerChild c : all()) {
      all &= c.pollReady();
    }
    return all;
  }

  /** The first launched process that has exited, or null. */
  SkewerChild dead() {
    for (SkewerChild c : all()) {
      if (c.launchedMs() > 0 && !c.isAlive()) {
        return c;
      }
    }
    return null;
  }

  /** SIGTERM to all, waits for each. */
  void stop() {
    SkewerChild.stopAll(all());
  }

  /**
   * Sets {@code watermark.finalizeAfterIdle} in this cluster's job file (before {@link #launch}):
   * W1's 1 s suits events loaded before the cluster starts, not a live load on a machine where the
   * producer can stall for longer.
   */
  void finalizeAfterIdle(Duration idle) {
    if (idle.toSeconds() < 1 || idle.toMillis() % 1000 != 0) {
      throw new IllegalArgumentException("idle must be whole seconds >= 1: " + idle);
    }
    try {
      String yaml = Files.readString(jobFile, StandardCharsets.UTF_8);
      String changed =
          yaml.replaceFirst(
              "(?m)^  finalizeAfterIdle: \\S+", "  finalizeAfterIdle: " + idle.toSeconds() + "s");
      if (changed.equals(yaml)) {
        throw new IllegalStateException(jobFile + " has no 'finalizeAfterIdle:' line to change");
      }
      Files.writeString(jobFile, changed, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot rewrite " + jobFile, e);
    }
  }

  /**
   * Writes W1's job file ({@code examples/w1.yaml}) under {@code jobName}, with output topics named
   * after the job so that runs never read each other's results.
   *
   * @param eventsTopic the events topic; null = W1's ({@code events})
   * @param eventsPartitions the events topic's partitions ({@link #W1_PARTITIONS} for W1's)
   */
  static void writeW1Job(String jobName, String eventsTopic, int eventsPartitions, Path file) {
    String yaml;
    try (InputStream in = DeployedCluster.class.getResourceAsStream(W1_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(W1_RESOURCE + " is missing from the class path");
      }
      yaml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String named = yaml.replaceFirst("(?m)^name: .*$", "name: " + jobName);
    if (eventsTopic != null) {
      named = named.replaceFirst("(?m)^  events: events$", "  events: " + eventsTopic);
    }
    String withTopics =
        named.replaceFirst(
            "(?m)^  eventsPartitions: 4$",
            "  eventsPartitions: "
                + eventsPartitions
                + "\n"
                + "  results: "
                + jobName
                + ".results\n"
                + "  late: "
                + jobName
                + ".late\n"
                + "  dlq: "
                + jobName
                + ".dlq");
    if (named.equals(yaml) || withTopics.equals(named)) {
      throw new IllegalStateException(
          W1_RESOURCE + " no longer has the 'name:' and 'eventsPartitions: 4' lines this reads");
    }
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, withTopics, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }
}

package dev.skewer.benchmarks.deployed;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.core.kafka.TopicProvisioner;
import dev.skewer.launcher.local.LocalCluster;
import dev.skewer.launcher.verify.ResultCheck;
import dev.skewer.loadgen.reference.ExactReference;
import dev.skewer.testkit.kafka.KafkaBrokerProcess;
import dev.skewer.testkit.kafka.TopicReader;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code skewer bench deployed}: W1 in the shape users deploy (BENCHMARK.md, "W1 in the deployed
 * shape"). The broker runs in its own JVM (Kafka's default flags); W1 is loaded once as JSON into
 * {@code events} (4 partitions); then per run 2 {@code skewer node} and 1 {@code skewer
 * coordinator} processes start on the product jar, each its own JVM with its Hazelcast member,
 * checkpoints and hot-key detection as shipped, under a job of its own (own groups, internal and
 * output topics). A run is timed from the launch and from the moment every process answers {@code
 * /health/ready} with 200 to the broker's append timestamp of the last result; CPU seconds per
 * process and for the broker come from {@code /proc}. Every run's results are checked against the
 * loader's exact reference, per (key, window).
 *
 * <p>With {@code --in-process}, each run is followed by the same cluster code in this JVM without
 * Hazelcast ({@code bench e2e}'s shape) against the same broker and events, so the gap is measured
 * side by side.
 */
@Command(
    name = "deployed",
    mixinStandardHelpOptions = true,
    description = {
      "W1 in the deployed shape: the broker in its own JVM, 2 node and 1 coordinator processes on"
          + " the product jar with Hazelcast and checkpoints as shipped.",
      "Timed from launch and from ready to the last result; CPU per process; every run checked"
          + " against the exact reference."
    })
public final class DeployedBench implements Callable<Integer> {

  private static final Duration READY_TIMEOUT = Duration.ofMinutes(2);
  private static final Duration RESULTS_TIMEOUT = Duration.ofMinutes(30);
  private static final long PROGRESS_EVERY_MS = 5_000;

  @Option(
      names = "--events",
      defaultValue = "5000000",
      description = "W1 events loaded. Default: ${DEFAULT-VALUE}.")
  long events;

  @Option(
      names = "--runs",
      defaultValue = "3",
      description = "Timed runs (a fresh cluster each). Default: ${DEFAULT-VALUE}.")
  int runs;

  @Option(
      names = "--seed",
      defaultValue = "1",
      description = "Workload seed. Default: ${DEFAULT-VALUE}.")
  long seed;

  @Option(
      names = "--jar",
      defaultValue = "launcher/target/skewer.jar",
      description =
          "The product jar the processes run. Default: ${DEFAULT-VALUE} (build it with"
              + " ./mvnw -B -q install -pl launcher -am -DskipTests).")
  Path jar;

  @Option(
      names = "--jvm-opts",
      defaultValue = SkewerChild.DEFAULT_JVM_OPTS,
      description =
          "JVM flags of each Skewer process, space-separated; {name} becomes the process's name."
              + " Default: '${DEFAULT-VALUE}' (the image's and the chart's collector).")
  String jvmOpts;

  @Mixin ClassDataOptions classData = new ClassDataOptions();

  @Mixin CoordinatorJvmOptions coordinatorJvm = new CoordinatorJvmOptions();

  @Mixin BrokerJvmOptions brokerJvm = new BrokerJvmOptions();

  @Option(
      names = "--process-arg",
      paramLabel = "ARG",
      description =
          "Appended to every Skewer process's command line, repeatable (e.g. --process-arg=-X"
              + " --process-arg=session.timeout.ms=6000). Default: none (as shipped).")
  List<String> processArgs = new ArrayList<>();

  @Option(
      names = "--in-process",
      description =
          "After each run, also run the same cluster code in this JVM without Hazelcast (bench"
              + " e2e's shape) on the same broker and events, and print both.")
  boolean inProcess;

  @Option(
      names = "--jfr",
      paramLabel = "DIR",
      description =
          "Record a JFR profile (settings=profile; for the Skewer processes every JIT compilation"
              + " too) of every process and of the broker during each run into DIR"
              + " (<run>-<process>.jfr); summarise with 'bench profile'.")
  Path jfrDir;

  @Option(
      names = "--work-dir",
      description =
          "Broker data, job files and process logs. Default: a new directory under"
              + " target/bench-deployed/.")
  Path workDir;

  @Option(
      names = "--keep-data",
      description = "Keep the broker's data when done (logs and job files are always kept).")
  boolean keepData;

  /** One run's figures. */
  record RunFigures(
      String label,
      boolean ok,
      String check,
      long launchToLastMs,
      long readyToLastMs,
      Map<String, Long> readyAfterMs,
      Map<String, Double> cpuSeconds,
      Map<String, Double> cpuSecondsFromReady,
      double brokerCpuSeconds,
      Map<String, Map<String, Double>> threadCpu,
      double maxLoad) {

    double skewerCpu() {
      return cpuSeconds.values().stream().mapToDouble(Double::doubleValue).sum();
    }

    double skewerCpuFromReady() {
      return cpuSecondsFromReady.values().stream().mapToDouble(Double::doubleValue).sum();
    }
  }

  private KafkaBrokerProcess broker;
  private KafkaSettings kafka;
  private Admin admin;
  private ExactReference reference;
  private long expectedWindows;

  @Override
  public Integer call() throws Exception {
    if (!ProcessCpu.available()) {
      System.err.println("bench deployed needs Linux's /proc to read CPU times.");
      return 2;
    }
    if (!BenchPaths.productJarExists(jar)) {
      return 2;
    }
    if (!classData.usable()) {
      return 2;
    }
    if (events < 1 || runs < 1) {
      System.err.println("--events and --runs must be >= 1");
      return 2;
    }
    jar = jar.toAbsolutePath();
    workDir = BenchPaths.workDir(workDir, "bench-deployed");
    jfrDir = BenchPaths.optionalDir(jfrDir);
    List<String> brokerOptions = brokerJvm.list();
    System.out.printf(
        "Work dir %s; load average %.2f; %d cores.%n",
        workDir, Stats.loadAverage(), Runtime.getRuntime().availableProcessors());
    System.out.println("Starting the broker in its own JVM: " + String.join(" ", brokerOptions));
    Path brokerDir = workDir.resolve("broker");
    List<RunFigures> deployed = new ArrayList<>();
    List<RunFigures> local = new ArrayList<>();
    try {
      broker = KafkaBrokerProcess.start(brokerDir, 0, brokerOptions);
      kafka = KafkaSettings.of(broker.bootstrapServers());
      admin = Admin.create(kafka.adminConfig());
      load();
      for (int run = 1; run <= runs; run++) {
        deployed.add(deployedRun(run));
        if (inProcess) {
          local.add(inProcessRun(run));
        }
      }
    } finally {
      if (admin != null) {
        admin.close();
      }
      if (broker != null) {
        broker.stop();
      }
      if (!keepData) {
        BenchPaths.deleteRecursively(brokerDir);
      }
    }
    printSummary(deployed, local);
    boolean ok =
        Stream.concat(deployed.stream(), local.stream()).allMatch(RunFigures::ok)
            && deployed.size() == runs;
    System.out.println(
        ok
            ? "RESULT: every run's results matched the reference exactly."
            : "RESULT: MISMATCH — see the runs above.");
    System.out.println("Process logs and job files: " + workDir);
    return ok ? 0 : 1;
  }

  private void load() throws Exception {
    reference = W1Preload.load(broker, workDir, events, seed).reference();
    expectedWindows = reference.windows().size();
  }

  private JobSpec jobSpecOf(String name) {
    Path file = workDir.resolve(name + ".yaml");
    DeployedCluster.writeW1Job(name, null, DeployedCluster.W1_PARTITIONS, file);
    return dev.skewer.core.job.JobSpecLoader.load(file, Map.of());
  }

  private RunFigures deployedRun(int run) throws Exception {
    String label = "deployed-" + run;
    DeployedCluster cluster =
        DeployedCluster.plan(
            jar,
            classData.withArchive(JvmFlags.split(jvmOpts), jar, workDir),
            coordinatorJvm.list(),
            processArgs,
            List.of(),
            "w1-d" + run,
            null,
            DeployedCluster.W1_PARTITIONS,
            broker.bootstrapServers(),
            2,
            1,
            workDir,
            jfrDir,
            label);
    JobSpec job = cluster.job;
    createResultsTopic(job);
    System.out.printf(
        "%n[%s] launching 2 nodes + 1 coordinator (%s; load average %.2f)%n",
        label, jvmOpts + coordinatorJvm.describe(), Stats.loadAverage());
    startBrokerRecording(label);
    double brokerCpu0 = ProcessCpu.seconds(broker.pid());
    long launchMs = System.currentTimeMillis();
    cluster.launch();
    List<SkewerChild> children = cluster.all();
    Map<String, Double> cpuAtReady = new LinkedHashMap<>();
    long allReadyMs = -1;
    double maxLoad = Stats.loadAverage();
    long lastProgress = launchMs;
    long written = 0;
    long deadline = launchMs + RESULTS_TIMEOUT.toMillis();
    try {
      while (true) {
        long now = System.currentTimeMillis();
        SkewerChild dead = cluster.dead();
        if (dead != null) {
          throw new IllegalStateException(
              dead.name + " exited; the end of " + dead.logFile + ":\n" + dead.tail(40));
        }
        if (allReadyMs < 0) {
          if (cluster.pollReady()) {
            allReadyMs = System.currentTimeMillis();
            children.forEach(c -> cpuAtReady.put(c.name, c.cpuSeconds()));
            StringBuilder sb = new StringBuilder();
            for (SkewerChild c : children) {
              sb.append(
                  String.format(" %s %.2fs", c.name, (c.readyMs() - c.launchedMs()) / 1000.0));
            }
            System.out.printf("  all ready after %.2fs:%s%n", (allReadyMs - launchMs) / 1000.0, sb);
          } else if (now - launchMs > READY_TIMEOUT.toMillis()) {
            throw new IllegalStateException(
                "not every process was ready within " + READY_TIMEOUT + "; logs in " + workDir);
          }
        }
        written = endOffset(job.topics().results());
        if (written >= expectedWindows && allReadyMs >= 0) {
          break;
        }
        if (now > deadline) {
          throw new IllegalStateException(
              "only " + written + " of " + expectedWindows + " results within " + RESULTS_TIMEOUT);
        }
        if (now - lastProgress >= PROGRESS_EVERY_MS) {
          lastProgress = now;
          maxLoad = Math.max(maxLoad, Stats.loadAverage());
          System.out.printf(
              "  %5.1fs: %,d / %,d results; CPU s:%s broker %.1f; load %.2f%n",
              (now - launchMs) / 1000.0,
              written,
              expectedWindows,
              cpuLine(children),
              ProcessCpu.seconds(broker.pid()) - brokerCpu0,
              Stats.loadAverage());
        }
        Thread.sleep(allReadyMs < 0 ? 50 : 200);
      }
      Map<String, Double> cpu = new LinkedHashMap<>();
      Map<String, Double> cpuFromReady = new LinkedHashMap<>();
      for (SkewerChild c : children) {
        double s = c.cpuSeconds();
        cpu.put(c.name, s);
        cpuFromReady.put(c.name, s - cpuAtReady.get(c.name));
      }
      double brokerCpu = ProcessCpu.seconds(broker.pid()) - brokerCpu0;
      maxLoad = Math.max(maxLoad, Stats.loadAverage());
      Map<String, Map<String, Double>> threads = new LinkedHashMap<>();
      for (SkewerChild c : children) {
        threads.put(c.name, ThreadCpu.byGroup(c.pid()));
      }
      stopBrokerRecording(label);
      System.out.println("  all results written; stopping the processes...");
      cluster.stop();
      Checked checked = check(job);
      Map<String, Long> readyAfter = new LinkedHashMap<>();
      children.forEach(c -> readyAfter.put(c.name, c.readyMs() - c.launchedMs()));
      RunFigures f =
          new RunFigures(
              label,
              checked.ok,
              checked.summary,
              checked.lastMs - launchMs,
              checked.lastMs - allReadyMs,
              readyAfter,
              cpu,
              cpuFromReady,
              brokerCpu,
              threads,
              maxLoad);
      printRun(f);
      return f;
    } finally {
      cluster.all().forEach(SkewerChild::kill);
      deleteTopics(job);
    }
  }

  private RunFigures inProcessRun(int run) throws Exception {
    String label = "in-process-" + run;
    JobSpec job = jobSpecOf("w1-i" + run);
    createResultsTopic(job);
    TopicProvisioner.ensureTopics(admin, job.topics(), Duration.ofSeconds(60));
    System.gc();
    System.out.printf(
        "%n[%s] starting 2 nodes + 1 coordinator in this JVM, no Hazelcast (load average %.2f)%n",
        label, Stats.loadAverage());
    startBrokerRecording(label);
    double brokerCpu0 = ProcessCpu.seconds(broker.pid());
    double cpu0 = ProcessCpu.self();
    long startMs = System.currentTimeMillis();
    double maxLoad = Stats.loadAverage();
    double cpuAtUp;
    long upMs;
    double cpu;
    double brokerCpu;
    try (LocalCluster cluster =
        LocalCluster.start(
            job, kafka, 2, 1, false, 0, new SimpleMeterRegistry(), Clock.systemUTC())) {
      upMs = System.currentTimeMillis();
      cpuAtUp = ProcessCpu.self();
      System.out.printf("  up after %.2fs%n", (upMs - startMs) / 1000.0);
      long lastProgress = upMs;
      long deadline = upMs + RESULTS_TIMEOUT.toMillis();
      while (true) {
        long written = endOffset(job.topics().results());
        long now = System.currentTimeMillis();
        if (written >= expectedWindows) {
          break;
        }
        if (now > deadline) {
          throw new IllegalStateException(
              "only " + written + " of " + expectedWindows + " results within " + RESULTS_TIMEOUT);
        }
        if (now - lastProgress >= PROGRESS_EVERY_MS) {
          lastProgress = now;
          maxLoad = Math.max(maxLoad, Stats.loadAverage());
          System.out.printf(
              "  %5.1fs: %,d / %,d results; CPU s: this JVM %.1f, broker %.1f; load %.2f%n",
              (now - startMs) / 1000.0,
              written,
              expectedWindows,
              ProcessCpu.self() - cpu0,
              ProcessCpu.seconds(broker.pid()) - brokerCpu0,
              Stats.loadAverage());
        }
        Thread.sleep(200);
      }
      cpu = ProcessCpu.self() - cpu0;
      brokerCpu = ProcessCpu.seconds(broker.pid()) - brokerCpu0;
      maxLoad = Math.max(maxLoad, Stats.loadAverage());
      stopBrokerRecording(label);
    }
    try {
      Checked checked = check(job);
      RunFigures f =
          new RunFigures(
              label,
              checked.ok,
              checked.summary,
              checked.lastMs - startMs,
              checked.lastMs - upMs,
              Map.of("in-process", upMs - startMs),
              Map.of("in-process", cpu),
              Map.of("in-process", cpu - (cpuAtUp - cpu0)),
              brokerCpu,
              Map.of(),
              maxLoad);
      printRun(f);
      return f;
    } finally {
      deleteTopics(job);
    }
  }

  private record Checked(boolean ok, String summary, long lastMs) {}

  /** Reads the run's results and compares every (key, window) with the reference. */
  private Checked check(JobSpec job) {
    List<ConsumerRecord<byte[], byte[]>> results =
        TopicReader.readAll(
            broker.bootstrapServers(), job.topics().results(), Duration.ofMinutes(2));
    long lastMs = Long.MIN_VALUE;
    Set<String> keys = new HashSet<>();
    for (ConsumerRecord<byte[], byte[]> r : results) {
      lastMs = Math.max(lastMs, r.timestamp());
      keys.add(new String(r.key(), StandardCharsets.UTF_8));
    }
    ResultCheck.Report report = ResultCheck.check(reference, results, "key", "value", false);
    if (!report.ok()) {
      System.out.printf(
          "  MISMATCH: %d problems in %s, e.g.:%n",
          report.problems().size(), job.topics().results());
      report.problems().stream().limit(10).forEach(p -> System.out.println("    " + p));
    }
    return new Checked(report.ok(), report.summary(), lastMs);
  }

  /**
   * The results topic as the coordinator would create it (compacted, one partition per partials
   * partition), but stamped by the broker ({@code LogAppendTime}) so the last result's timestamp is
   * the broker's.
   */
  private void createResultsTopic(JobSpec job) throws Exception {
    try {
      admin
          .createTopics(
              List.of(
                  new NewTopic(
                          job.topics().results(),
                          job.topics().partialsPartitions(),
                          job.topics().replicationFactor())
                      .configs(
                          Map.of(
                              TopicConfig.CLEANUP_POLICY_CONFIG,
                              TopicConfig.CLEANUP_POLICY_COMPACT,
                              TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG,
                              "LogAppendTime",
                              TopicConfig.RETENTION_MS_CONFIG,
                              "-1"))))
          .all()
          .get(60, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw e;
      }
    }
  }

  /** The run's own topics, so runs do not fill the disk. */
  private void deleteTopics(JobSpec job) {
    JobTopics.delete(admin, job, false);
  }

  private long endOffset(String topic) throws Exception {
    return JobTopics.total(admin, topic);
  }

  private void startBrokerRecording(String label) {
    if (jfrDir != null) {
      Jcmd.run(broker.pid(), "JFR.start", "name=" + label, "settings=profile");
    }
  }

  private void stopBrokerRecording(String label) {
    if (jfrDir != null) {
      Jcmd.run(
          broker.pid(),
          "JFR.stop",
          "name=" + label,
          "filename=" + jfrDir.resolve(label + "-broker.jfr"));
    }
  }

  private static String cpuLine(List<SkewerChild> children) {
    StringBuilder sb = new StringBuilder();
    for (SkewerChild c : children) {
      sb.append(String.format(" %s %.1f%s", c.name, c.cpuSeconds(), c.readyMs() < 0 ? "*" : ""));
    }
    return sb.toString();
  }

  private void printRun(RunFigures f) {
    double n = events;
    System.out.printf(
        "[%s] %s: %,.0f events/s from launch (%.2fs), %,.0f from ready (%.2fs); "
            + "CPU %.1fs in Skewer's processes = %.2f µs/event (%.2f from ready), broker %.1fs = %.2f"
            + " µs/event; max load %.2f%n",
        f.label,
        f.ok ? "exact" : "MISMATCH",
        n * 1000 / f.launchToLastMs,
        f.launchToLastMs / 1000.0,
        n * 1000 / f.readyToLastMs,
        f.readyToLastMs / 1000.0,
        f.skewerCpu(),
        f.skewerCpu() * 1e6 / n,
        f.skewerCpuFromReady() * 1e6 / n,
        f.brokerCpuSeconds,
        f.brokerCpuSeconds * 1e6 / n,
        f.maxLoad);
    System.out.println("  check: " + f.check);
    for (Map.Entry<String, Double> e : f.cpuSeconds.entrySet()) {
      System.out.printf(
          "  %-14s ready after %.2fs, CPU %.1fs (%.1fs from ready)%n",
          e.getKey(),
          f.readyAfterMs.get(e.getKey()) / 1000.0,
          e.getValue(),
          f.cpuSecondsFromReady.get(e.getKey()));
      Map<String, Double> threads = f.threadCpu.getOrDefault(e.getKey(), Map.of());
      if (!threads.isEmpty()) {
        double listed = threads.values().stream().mapToDouble(Double::doubleValue).sum();
        StringBuilder sb = new StringBuilder();
        threads.entrySet().stream()
            .limit(8)
            .forEach(
                t ->
                    sb.append(
                        String.format(
                            "%n      %5.1f%% %6.1fs %s",
                            100 * t.getValue() / e.getValue(), t.getValue(), t.getKey())));
        System.out.printf(
            "    CPU by thread group (live threads account for %.1fs):%s%n", listed, sb);
      }
    }
  }

  private void printSummary(List<RunFigures> deployed, List<RunFigures> local) {
    System.out.printf(
        "%n===== W1 in the deployed shape: %,d events, median [min–max] of %d runs =====%n",
        events, deployed.size());
    printShape(
        "deployed: 2 node + 1 coordinator JVMs, Hazelcast ("
            + jvmOpts
            + coordinatorJvm.describe()
            + "; "
            + classData.describe()
            + ")",
        deployed);
    if (!local.isEmpty()) {
      printShape("in-process: the same cluster code in one JVM, no Hazelcast (bench e2e)", local);
      double d = Stats.median(rates(deployed, RunFigures::readyToLastMs));
      double l = Stats.median(rates(local, RunFigures::readyToLastMs));
      System.out.printf("  in-process / deployed, from ready: %.2f×%n", l / d);
    }
  }

  private void printShape(String title, List<RunFigures> rs) {
    if (rs.isEmpty()) {
      return;
    }
    double n = events;
    System.out.println(title);
    System.out.printf(
        "  events/s from launch: %s%n",
        Stats.medianRange(rates(rs, RunFigures::launchToLastMs), "%,.0f"));
    System.out.printf(
        "  events/s from ready:  %s%n",
        Stats.medianRange(rates(rs, RunFigures::readyToLastMs), "%,.0f"));
    System.out.printf(
        "  CPU µs/event, Skewer: %s (from ready %s); broker %s%n",
        Stats.medianRange(rs.stream().map(r -> r.skewerCpu() * 1e6 / n).toList(), "%.2f"),
        Stats.medianRange(rs.stream().map(r -> r.skewerCpuFromReady() * 1e6 / n).toList(), "%.2f"),
        Stats.medianRange(rs.stream().map(r -> r.brokerCpuSeconds * 1e6 / n).toList(), "%.2f"));
    for (String p : rs.get(0).cpuSeconds.keySet()) {
      System.out.printf(
          "  %-14s CPU s %s, launch → ready s %s%n",
          p,
          Stats.medianRange(rs.stream().map(r -> r.cpuSeconds.get(p)).toList(), "%.1f"),
          Stats.medianRange(rs.stream().map(r -> r.readyAfterMs.get(p) / 1000.0).toList(), "%.2f"));
    }
    System.out.printf(
        "  broker         CPU s %s%n",
        Stats.medianRange(rs.stream().map(r -> r.brokerCpuSeconds).toList(), "%.1f"));
    System.out.printf(
        "  max load average during the runs: %s%n",
        Stats.medianRange(rs.stream().map(RunFigures::maxLoad).toList(), "%.1f"));
  }

  private List<Double> rates(
      List<RunFigures> rs, java.util.function.ToLongFunction<RunFigures> ms) {
    return rs.stream().map(r -> events * 1000.0 / Math.max(1, ms.applyAsLong(r))).toList();
  }
}

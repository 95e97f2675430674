package dev.skewer.benchmarks.deployed;

import dev.skewer.core.job.JobNames;
import dev.skewer.core.job.JobSpec;
import dev.skewer.testkit.kafka.KafkaBrokerProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code skewer bench startup}: how long the deployed shape's processes (2 {@code skewer node}, 1
 * {@code skewer coordinator}, each its own JVM on the product jar with its Hazelcast member, all
 * launched at once) take from launch to {@code /health/ready} = 200, on an empty events topic so
 * that nothing but the start-up runs; the CPU each used until ready, by thread group; and each
 * start-up step as the process logs it ({@code start-up: <step> in N ms (JVM up M ms)}).
 */
@Command(
    name = "startup",
    mixinStandardHelpOptions = true,
    description =
        "Launch → ready of 2 node and 1 coordinator processes on the product jar (Hazelcast on),"
            + " with the CPU and the start-up steps of each.")
public final class StartupBench implements Callable<Integer> {

  private static final Duration READY_TIMEOUT = Duration.ofMinutes(2);
  private static final Pattern STEP =
      Pattern.compile("start-up: (.+) in (\\d+) ms \\(JVM up (\\d+) ms\\)");

  @Option(
      names = "--runs",
      defaultValue = "5",
      description = "Start-ups measured. Default: ${DEFAULT-VALUE}.")
  int runs;

  @Option(
      names = "--jar",
      defaultValue = "launcher/target/skewer.jar",
      description = "The product jar. Default: ${DEFAULT-VALUE}.")
  Path jar;

  @Option(
      names = "--jvm-opts",
      defaultValue = SkewerChild.DEFAULT_JVM_OPTS,
      description =
          "JVM flags of each process, space-separated; {name} becomes the process's name."
              + " Default: '${DEFAULT-VALUE}'.")
  String jvmOpts;

  @Mixin ClassDataOptions classData = new ClassDataOptions();

  @Mixin CoordinatorJvmOptions coordinatorJvm = new CoordinatorJvmOptions();

  @Option(
      names = "--process-arg",
      paramLabel = "ARG",
      description = "Appended to every process's command line, repeatable. Default: none.")
  List<String> processArgs = new ArrayList<>();

  @Option(
      names = "--threads",
      description =
          "At ready, also list each process's CPU by thread group (jcmd Thread.print: the JIT and"
              + " GC threads included).")
  boolean threads;

  @Option(
      names = "--one-by-one",
      description =
          "Launch each process once the previous one is ready (a rolling start, or a process"
              + " replacing a dead one) instead of all together.")
  boolean oneByOne;

  @Option(
      names = "--jfr",
      paramLabel = "DIR",
      description =
          "Record a JFR profile (settings=profile, every JIT compilation) of every process into DIR"
              + " (startup-<run>-<process>.jfr); summarise with 'bench profile'.")
  Path jfrDir;

  @Option(
      names = "--work-dir",
      description = "Broker data and logs. Default: a new directory under target/bench-startup/.")
  Path workDir;

  /** One process's start-up. */
  record Startup(
      String name, long readyAfterMs, double cpuAtReady, Map<String, Long> stepsJvmUpMs) {}

  @Override
  public Integer call() throws Exception {
    if (!BenchPaths.productJarExists(jar)) {
      return 2;
    }
    if (!classData.usable()) {
      return 2;
    }
    jar = jar.toAbsolutePath();
    workDir = BenchPaths.workDir(workDir, "bench-startup");
    jfrDir = BenchPaths.optionalDir(jfrDir);
    List<List<Startup>> all = new ArrayList<>();
    List<Double> loads = new ArrayList<>();
    System.out.println("Starting the broker in its own JVM (Kafka's default flags)...");
    try (KafkaBrokerProcess broker =
            KafkaBrokerProcess.start(
                workDir.resolve("broker"), 0, KafkaBrokerProcess.KAFKA_DEFAULT_JVM_OPTIONS);
        Admin admin =
            Admin.create(
                dev.skewer.core.kafka.KafkaSettings.of(broker.bootstrapServers()).adminConfig())) {
      for (int run = 1; run <= runs; run++) {
        String jobName = "w1-s" + run;
        DeployedCluster cluster =
            DeployedCluster.plan(
                jar,
                classData.withArchive(JvmFlags.split(jvmOpts), jar, workDir),
                coordinatorJvm.list(),
                processArgs,
                List.of(),
                jobName,
                jobName + ".events",
                DeployedCluster.W1_PARTITIONS,
                broker.bootstrapServers(),
                2,
                1,
                workDir,
                jfrDir,
                "startup-" + run);
        double load = Stats.loadAverage();
        loads.add(load);
        System.out.printf("%n[startup-%d] launching (load average %.2f)%n", run, load);
        List<Startup> startups = new ArrayList<>();
        try {
          Map<String, Double> cpuAtReady = new LinkedHashMap<>();
          if (oneByOne) {
            for (SkewerChild c : cluster.all()) {
              c.launch();
              awaitReady(List.of(c), cluster, cpuAtReady);
            }
          } else {
            cluster.launch();
            awaitReady(cluster.all(), cluster, cpuAtReady);
          }
          Map<String, Map<String, Double>> groups = new LinkedHashMap<>();
          if (threads) {
            for (SkewerChild c : cluster.all()) {
              groups.put(c.name, ThreadCpu.byGroup(c.pid()));
            }
          }
          cluster.stop();
          for (SkewerChild c : cluster.all()) {
            Startup s =
                new Startup(
                    c.name, c.readyMs() - c.launchedMs(), cpuAtReady.get(c.name), steps(c.logFile));
            startups.add(s);
            System.out.printf(
                "  %-14s ready after %.2fs, %.1f CPU s; steps (JVM up at the end): %s%n",
                s.name, s.readyAfterMs / 1000.0, s.cpuAtReady, s.stepsJvmUpMs);
            Map<String, Double> g = groups.getOrDefault(c.name, Map.of());
            g.entrySet().stream()
                .limit(6)
                .forEach(e -> System.out.printf("      %6.2fs %s%n", e.getValue(), e.getKey()));
          }
          all.add(startups);
        } finally {
          cluster.all().forEach(SkewerChild::kill);
          deleteTopics(admin, cluster.job);
        }
      }
    }
    System.out.printf(
        "%n===== launch → ready, 2 nodes + 1 coordinator launched %s (%s), median [min–max]"
            + " of %d; load average %s =====%n",
        oneByOne ? "one by one" : "together",
        jvmOpts + coordinatorJvm.describe() + "; " + classData.describe(),
        all.size(),
        Stats.medianRange(loads, "%.1f"));
    List<Double> slowest = new ArrayList<>();
    for (List<Startup> run : all) {
      slowest.add(run.stream().mapToLong(Startup::readyAfterMs).max().orElse(0) / 1000.0);
    }
    System.out.printf("  every process ready: %s s%n", Stats.medianRange(slowest, "%.2f"));
    for (int i = 0; i < all.get(0).size(); i++) {
      int index = i;
      List<Startup> of = all.stream().map(r -> r.get(index)).toList();
      System.out.printf(
          "  %-14s ready %s s, CPU at ready %s s%n",
          of.get(0).name,
          Stats.medianRange(of.stream().map(s -> s.readyAfterMs / 1000.0).toList(), "%.2f"),
          Stats.medianRange(of.stream().map(Startup::cpuAtReady).toList(), "%.1f"));
      for (String step : of.get(0).stepsJvmUpMs.keySet()) {
        List<Double> at =
            of.stream()
                .filter(s -> s.stepsJvmUpMs.containsKey(step))
                .map(s -> s.stepsJvmUpMs.get(step) / 1000.0)
                .toList();
        System.out.printf("      %-45s done at JVM up %s s%n", step, Stats.medianRange(at, "%.2f"));
      }
    }
    System.out.println("Logs: " + workDir.resolve("logs"));
    return 0;
  }

  /** Polls until every one of {@code children} is ready, noting its CPU then. */
  private void awaitReady(
      List<SkewerChild> children, DeployedCluster cluster, Map<String, Double> cpuAtReady)
      throws InterruptedException {
    long startMs = System.currentTimeMillis();
    while (!children.stream().allMatch(c -> cpuAtReady.containsKey(c.name))) {
      SkewerChild dead = cluster.dead();
      if (dead != null) {
        throw new IllegalStateException(
            dead.name + " exited; the end of " + dead.logFile + ":\n" + dead.tail(40));
      }
      for (SkewerChild c : children) {
        if (!cpuAtReady.containsKey(c.name) && c.pollReady()) {
          cpuAtReady.put(c.name, c.cpuSeconds());
        }
      }
      if (System.currentTimeMillis() - startMs > READY_TIMEOUT.toMillis()) {
        throw new IllegalStateException(
            "not every process was ready within " + READY_TIMEOUT + "; logs in " + workDir);
      }
      Thread.sleep(20);
    }
  }

  /** The start-up steps a process logged: step → JVM uptime (ms) when it ended. */
  static Map<String, Long> steps(Path logFile) throws IOException {
    Map<String, Long> steps = new LinkedHashMap<>();
    for (String line : Files.readAllLines(logFile, StandardCharsets.UTF_8)) {
      Matcher m = STEP.matcher(line);
      if (m.find()) {
        String step = m.group(1).replaceAll("cluster of \\d+", "cluster of N");
        steps.put(step, Long.parseLong(m.group(3)));
      }
    }
    return steps;
  }

  private static void deleteTopics(Admin admin, JobSpec job) {
    JobNames names = JobNames.of(job);
    List<String> topics =
        List.of(
            job.topics().events(),
            job.topics().partials(),
            job.topics().results(),
            job.topics().late(),
            job.topics().dlq(),
            names.checkpointsTopic(),
            names.hotKeysTopic());
    try {
      Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
      admin
          .deleteTopics(topics.stream().filter(existing::contains).toList())
          .all()
          .get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      System.out.println("  (could not delete the run's topics: " + e + ")");
    }
  }
}

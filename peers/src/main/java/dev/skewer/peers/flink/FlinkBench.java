package dev.skewer.peers.flink;

import dev.skewer.benchmarks.deployed.BenchPaths;
import dev.skewer.benchmarks.deployed.BrokerJvmOptions;
import dev.skewer.benchmarks.deployed.JvmFlags;
import dev.skewer.benchmarks.deployed.ProcessCpu;
import dev.skewer.benchmarks.deployed.Stats;
import dev.skewer.benchmarks.deployed.W1Preload;
import dev.skewer.launcher.verify.ResultCheck;
import dev.skewer.loadgen.reference.ExactReference;
import dev.skewer.testkit.kafka.KafkaBrokerProcess;
import dev.skewer.testkit.kafka.TopicReader;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.config.TopicConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * W1 on Flink, timed as {@code bench deployed} times Skewer: the broker in its own JVM with Kafka's
 * default flags, W1 preloaded as JSON into 4 partitions by the same loader and seed, the Flink job
 * in its own JVM; from launch and from job submission to the last result's broker timestamp; the
 * JVM's and the broker's CPU; every run's results checked against the same exact reference.
 */
@Command(
    name = "flink",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "W1 on Flink 2.2 (one JVM, a local mini-cluster, parallelism 2 by default): the broker in"
          + " its own JVM, the same events, loader, seed and exact check as 'skewer bench"
          + " deployed'. Timed from launch and from job submission to the last result's broker"
          + " timestamp; CPU of the Flink JVM and of the broker."
    })
public final class FlinkBench implements Callable<Integer> {

  private static final Duration RUN_TIMEOUT = Duration.ofMinutes(30);

  @Option(names = "--events", description = "W1 events loaded. Default: ${DEFAULT-VALUE}.")
  long events = 5_000_000;

  @Option(
      names = "--runs",
      description = "Timed runs (a fresh JVM each). Default: ${DEFAULT-VALUE}.")
  int runs = 3;

  @Option(names = "--seed", description = "Workload seed. Default: ${DEFAULT-VALUE}.")
  long seed = 1;

  @Option(
      names = "--parallelism",
      description =
          "The job's parallelism (task slots of the mini-cluster). Default: ${DEFAULT-VALUE}.")
  int parallelism = 2;

  @Option(
      names = "--checkpoint-interval-ms",
      description =
          "Flink checkpoints every this many ms (heap state, checkpoints to files in the work"
              + " dir); 0: none."
              + " Default: ${DEFAULT-VALUE}.")
  long checkpointIntervalMs = 0;

  @Option(
      names = "--lazy-digests",
      description =
          "Make a (key, window)'s t-digest only past 128 values or at the window's close, as"
              + " Skewer's quantile sketch does (a tuned job); by default every (key, window) gets"
              + " its MergingDigest with its first event, as the t-digest library is used.")
  boolean lazyDigests;

  @Option(
      names = "--jvm-opts",
      description =
          "JVM flags of the Flink JVM, space-separated. Default: '${DEFAULT-VALUE}' (the heap of"
              + " bench deployed's three processes together; with 3 GB W1's t-digests exhaust it).")
  String jvmOpts = "-Xmx9g -XX:+UseParallelGC";

  @Mixin BrokerJvmOptions brokerJvm = new BrokerJvmOptions();

  @Option(
      names = "--work-dir",
      description =
          "Broker data and the Flink JVMs' logs. Default: a new directory under target/bench-flink/.")
  Path workDir;

  private KafkaBrokerProcess broker;
  private ExactReference reference;

  /** One timed run. */
  record Run(
      boolean ok,
      long launchToLastMs,
      long submitToLastMs,
      double cpuSeconds,
      double cpuFromSubmitSeconds,
      double brokerCpuSeconds,
      double maxLoad) {}

  @Override
  public Integer call() throws Exception {
    if (!ProcessCpu.available()) {
      System.err.println("bench flink needs Linux's /proc to read CPU times.");
      return 2;
    }
    if (events < 1 || runs < 1 || parallelism < 1 || checkpointIntervalMs < 0) {
      System.err.println(
          "--events, --runs and --parallelism must be >= 1, --checkpoint-interval-ms >= 0");
      return 2;
    }
    workDir = BenchPaths.workDir(workDir, "bench-flink");
    List<String> brokerOptions = brokerJvm.list();
    System.out.printf(
        "Work dir %s; load average %.2f; %d cores.%n",
        workDir, Stats.loadAverage(), Runtime.getRuntime().availableProcessors());
    System.out.println("Starting the broker in its own JVM: " + String.join(" ", brokerOptions));
    Path brokerDir = workDir.resolve("broker");
    List<Run> done = new ArrayList<>();
    try {
      broker = KafkaBrokerProcess.start(brokerDir, 0, brokerOptions);
      W1Preload.Loaded loaded = W1Preload.load(broker, workDir, events, seed);
      reference = loaded.reference();
      String eventsTopic = loaded.eventsTopic();
      for (int run = 1; run <= runs; run++) {
        done.add(run(run, eventsTopic));
      }
    } finally {
      if (broker != null) {
        broker.stop();
      }
      BenchPaths.deleteRecursively(brokerDir);
    }
    printSummary(done);
    boolean ok = done.size() == runs && done.stream().allMatch(Run::ok);
    System.out.println(
        ok
            ? "RESULT: every run's results matched the reference exactly."
            : "RESULT: MISMATCH — see the runs above.");
    System.out.println("Flink JVMs' logs: " + workDir);
    return ok ? 0 : 1;
  }

  private Run run(int run, String eventsTopic) throws Exception {
    String label = "flink-" + run;
    String results = label + ".results";
    // stamped by the broker, so the last result's timestamp is the broker's (as bench deployed's)
    broker.createTopic(
        results,
        2,
        Map.of(
            TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG,
            "LogAppendTime",
            TopicConfig.RETENTION_MS_CONFIG,
            "-1"));
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(JvmFlags.split(jvmOpts));
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(FlinkW1Job.class.getName());
    command.add(broker.bootstrapServers());
    command.add(eventsTopic);
    command.add(results);
    command.add("skewer-bench-" + label);
    command.add(Integer.toString(parallelism));
    command.add(Long.toString(checkpointIntervalMs));
    command.add(workDir.resolve(label + "-checkpoints").toString());
    command.add(lazyDigests ? "lazy" : "eager");
    Path log = workDir.resolve(label + ".log");
    System.out.printf(
        "%n[%s] launching Flink (%s; parallelism %d; %s digests; checkpoints %s; load average"
            + " %.2f)%n",
        label,
        describeJvmOpts(),
        parallelism,
        lazyDigests ? "lazy" : "eager",
        checkpointIntervalMs > 0 ? "every " + checkpointIntervalMs + " ms" : "off",
        Stats.loadAverage());
    double brokerCpu0 = ProcessCpu.seconds(broker.pid());
    long launchMs = System.currentTimeMillis();
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    FlinkJvmOutput output = new FlinkJvmOutput(p.getInputStream(), log);
    Thread copier = new Thread(output, label + "-output");
    copier.setDaemon(true);
    copier.start();
    double maxLoad = Stats.loadAverage();
    boolean announced = false;
    while (!p.waitFor(5, TimeUnit.SECONDS)) {
      long now = System.currentTimeMillis();
      if (now - launchMs > RUN_TIMEOUT.toMillis()) {
        p.destroyForcibly();
        throw new IllegalStateException(
            label + " did not finish in " + RUN_TIMEOUT + ": see " + log);
      }
      if (!announced && output.submittedMs() >= 0) {
        announced = true;
        System.out.printf(
            "  job submitted %.2fs after launch, %.1f CPU s%n",
            (output.submittedMs() - launchMs) / 1000.0, output.cpuAtSubmission());
      }
      maxLoad = Math.max(maxLoad, Stats.loadAverage());
      System.out.printf(
          "  %5.1fs: %s; CPU s: flink %.1f broker %.1f; load %.2f%n",
          (now - launchMs) / 1000.0,
          output.submittedMs() >= 0 ? "running" : "starting",
          ProcessCpu.seconds(p.pid()),
          ProcessCpu.seconds(broker.pid()) - brokerCpu0,
          Stats.loadAverage());
    }
    copier.join(TimeUnit.SECONDS.toMillis(30));
    long submitMs = output.submittedMs();
    double cpuAtSubmit = output.cpuAtSubmission();
    double cpuAtEnd = output.cpuAtEnd();
    double brokerCpu = ProcessCpu.seconds(broker.pid()) - brokerCpu0;
    maxLoad = Math.max(maxLoad, Stats.loadAverage());
    if (p.exitValue() != 0 || submitMs < 0 || Double.isNaN(cpuAtEnd)) {
      System.out.printf(
          "  [%s] the Flink JVM failed (exit %d): see %s%n", label, p.exitValue(), log);
      return new Run(false, 0, 0, 0, 0, brokerCpu, maxLoad);
    }
    List<ConsumerRecord<byte[], byte[]>> records =
        TopicReader.readAll(broker.bootstrapServers(), results, Duration.ofMinutes(2));
    long lastMs = records.stream().mapToLong(ConsumerRecord::timestamp).max().orElse(launchMs);
    ResultCheck.Report report = ResultCheck.check(reference, records, "key", "value", false);
    if (!report.ok()) {
      System.out.printf("  MISMATCH: %d problems, e.g.:%n", report.problems().size());
      report.problems().stream().limit(10).forEach(x -> System.out.println("    " + x));
    }
    Run r =
        new Run(
            report.ok(),
            lastMs - launchMs,
            lastMs - submitMs,
            cpuAtEnd,
            cpuAtEnd - cpuAtSubmit,
            brokerCpu,
            maxLoad);
    System.out.printf(
        "[%s] %s: %,.0f events/s from launch (%.2fs), %,.0f from submission (%.2fs); CPU %.1fs"
            + " in the Flink JVM = %.2f µs/event (%.2f from submission), broker %.1fs = %.2f"
            + " µs/event; max load %.2f%n",
        label,
        r.ok() ? "exact" : "MISMATCH",
        events * 1000.0 / r.launchToLastMs(),
        r.launchToLastMs() / 1000.0,
        events * 1000.0 / r.submitToLastMs(),
        r.submitToLastMs() / 1000.0,
        r.cpuSeconds(),
        r.cpuSeconds() * 1e6 / events,
        r.cpuFromSubmitSeconds() * 1e6 / events,
        brokerCpu,
        brokerCpu * 1e6 / events,
        maxLoad);
    System.out.println("  check: " + report.summary());
    return r;
  }

  /** The Flink JVM's flags for a header: those given, or that there are none. */
  private String describeJvmOpts() {
    List<String> flags = JvmFlags.split(jvmOpts);
    return flags.isEmpty() ? "no JVM flags" : String.join(" ", flags);
  }

  private void printSummary(List<Run> rs) {
    System.out.printf(
        "%n===== W1 on Flink: %,d events, median [min–max] of %d runs =====%n", events, rs.size());
    System.out.printf(
        "flink: one JVM (%s), parallelism %d, %s digests, checkpoints %s%n",
        describeJvmOpts(),
        parallelism,
        lazyDigests ? "lazy" : "eager",
        checkpointIntervalMs > 0 ? "every " + checkpointIntervalMs + " ms" : "off");
    List<Run> ok = rs.stream().filter(Run::ok).toList();
    if (ok.isEmpty()) {
      return;
    }
    System.out.printf(
        "  events/s from launch:     %s%n",
        Stats.medianRange(
            ok.stream().map(r -> events * 1000.0 / r.launchToLastMs()).toList(), "%,.0f"));
    System.out.printf(
        "  events/s from submission: %s%n",
        Stats.medianRange(
            ok.stream().map(r -> events * 1000.0 / r.submitToLastMs()).toList(), "%,.0f"));
    System.out.printf(
        "  CPU µs/event, Flink: %s (from submission %s); broker %s%n",
        Stats.medianRange(ok.stream().map(r -> r.cpuSeconds() * 1e6 / events).toList(), "%.2f"),
        Stats.medianRange(
            ok.stream().map(r -> r.cpuFromSubmitSeconds() * 1e6 / events).toList(), "%.2f"),
        Stats.medianRange(
            ok.stream().map(r -> r.brokerCpuSeconds() * 1e6 / events).toList(), "%.2f"));
    System.out.printf(
        "  max load average during the runs: %s%n",
        Stats.medianRange(ok.stream().map(Run::maxLoad).toList(), "%.1f"));
  }
}

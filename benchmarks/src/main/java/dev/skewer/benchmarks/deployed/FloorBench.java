package dev.skewer.benchmarks.deployed;

import dev.skewer.testkit.kafka.KafkaBrokerProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code skewer bench floor}: what W1's per-event work costs with nothing of Skewer's distribution
 * around it, timed as {@code bench deployed} times its processes (from launch, fresh JVMs, the same
 * flags). The broker runs in its own JVM and W1 is loaded once, as for {@code bench deployed}; then
 * per run and mode, {@code --processes} JVMs ({@link FloorConsumer}) each read their share of the
 * events topic's partitions from the beginning with the nodes' fetch settings, and by mode do
 * nothing more ({@code read}), decode every record with the node's decoder ({@code decode}), or
 * also fold it into the job's sketches per (key, window) and format every result ({@code fold}).
 * Reports events/s from launch to the last exit, CPU-µs per event in those JVMs and in the broker.
 * A run checks that every event was read, none rejected, and (fold) that the results are as many as
 * the exact reference's.
 */
@Command(
    name = "floor",
    mixinStandardHelpOptions = true,
    description = {
      "What W1's per-event work costs with nothing distributed: fresh JVMs that read W1 from the"
          + " broker (read), decode it with the node's decoder (decode), and fold it into the"
          + " job's sketches (fold).",
      "Timed from launch to the last exit, CPU per event, as bench deployed times its processes."
    })
public final class FloorBench implements Callable<Integer> {

  private static final long EXIT_TIMEOUT_MINUTES = 10;
  private static final Pattern FIGURES =
      Pattern.compile(
          "floor: mode=(\\w+) records=(\\d+) bytes=(\\d+) rejected=(\\d+) results=(\\d+)"
              + " checksum=(-?\\d+) cpu_s=([0-9.]+) uptime_ms=(\\d+) first_cpu_s=([0-9.]+)"
              + " first_ms=(\\d+)");

  @Option(
      names = "--events",
      defaultValue = "5000000",
      description = "W1 events loaded. Default: ${DEFAULT-VALUE}.")
  long events;

  @Option(
      names = "--runs",
      defaultValue = "3",
      description =
          "Runs of every mode (the modes' order turns each run). Default: ${DEFAULT-VALUE}.")
  int runs;

  @Option(
      names = "--seed",
      defaultValue = "1",
      description = "Workload seed. Default: ${DEFAULT-VALUE}.")
  long seed;

  @Option(
      names = "--processes",
      defaultValue = "2",
      description =
          "JVMs per run, the topic's partitions dealt among them (2: as many as bench deployed's"
              + " nodes). Default: ${DEFAULT-VALUE}.")
  int processes;

  @Option(
      names = "--modes",
      split = ",",
      defaultValue = "read,decode,fold",
      description =
          "Modes to run, comma-separated (read, decode, fold). Default: ${DEFAULT-VALUE}.")
  List<String> modes;

  @Option(
      names = "--jvm-opts",
      defaultValue = SkewerChild.DEFAULT_JVM_OPTS,
      description =
          "JVM flags of each reading JVM, space-separated. Default: '${DEFAULT-VALUE}' (bench"
              + " deployed's for its Skewer processes).")
  String jvmOpts;

  @Mixin BrokerJvmOptions brokerJvm = new BrokerJvmOptions();

  @Option(
      names = "--work-dir",
      description =
          "Broker data, the job file and the JVMs' output. Default: a new directory under"
              + " target/bench-floor/.")
  Path workDir;

  @Option(
      names = "--keep-data",
      description = "Keep the broker's data when done (the job file and output are always kept).")
  boolean keepData;

  /** One mode's run. */
  record RunFigures(
      String mode,
      boolean ok,
      String check,
      long launchToExitMs,
      double cpuSeconds,
      double cpuSecondsFromFirstRecord,
      double brokerCpuSeconds) {}

  @Override
  public Integer call() throws Exception {
    if (!ProcessCpu.available()) {
      System.err.println("bench floor needs Linux's /proc to read CPU times.");
      return 2;
    }
    if (events < 1 || runs < 1 || processes < 1 || processes > DeployedCluster.W1_PARTITIONS) {
      System.err.printf(
          "--events and --runs must be >= 1, --processes in [1, %d]%n",
          DeployedCluster.W1_PARTITIONS);
      return 2;
    }
    List<String> unknown = modes.stream().filter(m -> !FloorConsumer.MODES.contains(m)).toList();
    if (modes.isEmpty() || !unknown.isEmpty()) {
      System.err.println("--modes takes " + FloorConsumer.MODES + ", was " + modes);
      return 2;
    }
    workDir = BenchPaths.workDir(workDir, "bench-floor");
    List<String> brokerOptions = brokerJvm.list();
    System.out.printf(
        "Work dir %s; load average %.2f; %d cores.%n",
        workDir, Stats.loadAverage(), Runtime.getRuntime().availableProcessors());
    System.out.println("Starting the broker in its own JVM: " + String.join(" ", brokerOptions));
    Path brokerDir = workDir.resolve("broker");
    Map<String, List<RunFigures>> byMode = new LinkedHashMap<>();
    modes.forEach(m -> byMode.put(m, new ArrayList<>()));
    KafkaBrokerProcess broker = null;
    try {
      broker = KafkaBrokerProcess.start(brokerDir, 0, brokerOptions);
      W1Preload.Loaded loaded = W1Preload.load(broker, workDir, events, seed);
      Path job = workDir.resolve("w1-load.yaml");
      long expectedResults = loaded.reference().windows().size();
      for (int run = 1; run <= runs; run++) {
        for (int i = 0; i < modes.size(); i++) {
          String mode = modes.get((i + run - 1) % modes.size());
          byMode.get(mode).add(run(broker, loaded.eventsTopic(), job, mode, run, expectedResults));
        }
      }
    } finally {
      if (broker != null) {
        broker.stop();
      }
      if (!keepData) {
        BenchPaths.deleteRecursively(brokerDir);
      }
    }
    printSummary(byMode);
    boolean ok = byMode.values().stream().flatMap(List::stream).allMatch(RunFigures::ok);
    System.out.println(
        ok
            ? "RESULT: every run read every event, rejected none and (fold) made every result."
            : "RESULT: a run fell short — see the runs above.");
    System.out.println("Output of every JVM: " + workDir);
    return ok ? 0 : 1;
  }

  private RunFigures run(
      KafkaBrokerProcess broker, String topic, Path job, String mode, int run, long expectedResults)
      throws Exception {
    String label = mode + "-" + run;
    System.out.printf(
        "%n[%s] launching %d JVM(s) (%s; load average %.2f)%n",
        label, processes, jvmOpts, Stats.loadAverage());
    List<Process> launched = new ArrayList<>();
    List<Path> outputs = new ArrayList<>();
    double brokerCpu0 = ProcessCpu.seconds(broker.pid());
    long launchMs = System.currentTimeMillis();
    for (int p = 0; p < processes; p++) {
      Path out = workDir.resolve("logs").resolve(label + "-" + (p + 1) + ".log");
      Files.createDirectories(out.getParent());
      outputs.add(out);
      launched.add(
          new ProcessBuilder(command(broker.bootstrapServers(), topic, partitionsOf(p), mode, job))
              .redirectErrorStream(true)
              .redirectOutput(out.toFile())
              .start());
    }
    try {
      for (Process p : launched) {
        if (!p.waitFor(EXIT_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
          throw new IllegalStateException(
              label
                  + ": a JVM still ran after "
                  + EXIT_TIMEOUT_MINUTES
                  + " minutes; see "
                  + workDir);
        }
      }
    } finally {
      launched.forEach(Process::destroyForcibly);
    }
    long wallMs = System.currentTimeMillis() - launchMs;
    double brokerCpu = ProcessCpu.seconds(broker.pid()) - brokerCpu0;
    long records = 0;
    long rejected = 0;
    long results = 0;
    double cpu = 0;
    double cpuFromFirst = 0;
    StringBuilder perProcess = new StringBuilder();
    for (int p = 0; p < processes; p++) {
      Matcher m = figuresOf(outputs.get(p), launched.get(p).exitValue());
      records += Long.parseLong(m.group(2));
      rejected += Long.parseLong(m.group(4));
      results += Long.parseLong(m.group(5));
      double s = Double.parseDouble(m.group(7));
      cpu += s;
      cpuFromFirst += s - Double.parseDouble(m.group(9));
      perProcess.append(
          String.format(
              " JVM %d %.2f CPU s in %.2f s, first record after %.2f s and %.2f CPU s;",
              p + 1,
              s,
              Long.parseLong(m.group(8)) / 1e3,
              Long.parseLong(m.group(10)) / 1e3,
              Double.parseDouble(m.group(9))));
    }
    List<String> wrong = new ArrayList<>();
    if (records != events) {
      wrong.add(records + " of " + events + " events read");
    }
    if (rejected != 0) {
      wrong.add(rejected + " rejected by the decoder");
    }
    if (mode.equals("fold") && results != expectedResults) {
      wrong.add(results + " results against the reference's " + expectedResults);
    }
    String check = wrong.isEmpty() ? "ok" : "WRONG: " + String.join(", ", wrong);
    System.out.printf(
        "  %,.0f events/s from launch (%.2f s); %.2f CPU-µs per event in the JVMs, %.2f from"
            + " the first record (%.1f CPU s:%s broker %.2f CPU-µs per event; %s%n",
        events * 1000.0 / wallMs,
        wallMs / 1000.0,
        cpu * 1e6 / events,
        cpuFromFirst * 1e6 / events,
        cpu,
        perProcess.toString().replaceAll(";$", ")"),
        brokerCpu * 1e6 / events,
        check);
    return new RunFigures(mode, wrong.isEmpty(), check, wallMs, cpu, cpuFromFirst, brokerCpu);
  }

  private List<String> command(
      String bootstrap, String topic, String partitions, String mode, Path job) {
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(JvmFlags.split(jvmOpts));
    command.addAll(
        List.of(
            "-cp",
            System.getProperty("java.class.path"),
            FloorConsumer.class.getName(),
            bootstrap,
            topic,
            partitions,
            mode,
            job.toString()));
    return command;
  }

  /** Partitions p, p + processes, … of the events topic, comma-separated. */
  private String partitionsOf(int p) {
    return IntStream.range(0, DeployedCluster.W1_PARTITIONS)
        .filter(i -> i % processes == p)
        .mapToObj(Integer::toString)
        .collect(Collectors.joining(","));
  }

  /** The figures line of a JVM's output, or an exception quoting the output's end. */
  private static Matcher figuresOf(Path output, int exitCode) throws IOException {
    String text = Files.readString(output, StandardCharsets.UTF_8);
    Matcher m = FIGURES.matcher(text);
    if (exitCode != 0 || !m.find()) {
      throw new IllegalStateException(
          "a JVM exited with "
              + exitCode
              + " without its figures; the end of "
              + output
              + ":\n"
              + text.substring(Math.max(0, text.length() - 3000)));
    }
    return m;
  }

  private void printSummary(Map<String, List<RunFigures>> byMode) {
    System.out.printf(
        "%nW1 floor, %,d events, %d JVM(s) per run (%s), median [min–max] of %d runs:%n",
        events, processes, jvmOpts, runs);
    for (var e : byMode.entrySet()) {
      List<RunFigures> rs = e.getValue();
      System.out.printf(
          "  %-6s %s events/s from launch; %s CPU-µs per event in the JVMs, %s from the first"
              + " record; broker %s%n",
          e.getKey(),
          Stats.medianRange(
              rs.stream().map(r -> events * 1000.0 / r.launchToExitMs()).toList(), "%,.0f"),
          Stats.medianRange(rs.stream().map(r -> r.cpuSeconds() * 1e6 / events).toList(), "%.2f"),
          Stats.medianRange(
              rs.stream().map(r -> r.cpuSecondsFromFirstRecord() * 1e6 / events).toList(), "%.2f"),
          Stats.medianRange(
              rs.stream().map(r -> r.brokerCpuSeconds() * 1e6 / events).toList(), "%.2f"));
    }
  }
}

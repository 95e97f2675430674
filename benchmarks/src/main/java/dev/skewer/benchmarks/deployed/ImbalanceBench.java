package dev.skewer.benchmarks.deployed;

import dev.skewer.core.hotkey.HotKey;
import dev.skewer.core.hotkey.HotKeyTable;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.launcher.verify.ResultCheck;
import dev.skewer.loadgen.produce.LoadProducer;
import dev.skewer.loadgen.produce.LoadSummary;
import dev.skewer.loadgen.reference.ExactReference;
import dev.skewer.loadgen.workload.Workload;
import dev.skewer.loadgen.workload.WorkloadSpec;
import dev.skewer.testkit.kafka.KafkaBrokerProcess;
import dev.skewer.testkit.kafka.TopicReader;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.config.TopicConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code skewer bench imbalance}: per-node load imbalance on a real cluster (BENCHMARK.md, W3 and
 * W2 "on a real cluster"). The broker runs in its own JVM; per run, an events topic of 8
 * partitions, 8 {@code skewer node} and 1 {@code skewer coordinator} processes on the product jar
 * (each its own JVM with its Hazelcast member, small heaps, hot-key detection and everything else
 * as shipped, but for the fanout policy's floor and share when {@code --hot-key-min-rate} or {@code
 * --hot-key-target-share} is given), and the workload sent live at a fixed rate by the load
 * generator's producer — unsalted (every record on Kafka's default partition of its key) or salted
 * (following the job's hot-key topic as a {@code SaltingPartitioner} does, {@code skewer loadgen}'s
 * default). The figure is max/mean over the 8 nodes of {@code skewer.events.in}, read from each
 * node's {@code /metrics}.
 *
 * <p>Every run starts a fresh cluster under a job of its own (own topics, groups, Hazelcast cluster
 * and hot-key table), so no run inherits a table, a checkpoint or a warm JIT from another. Each run
 * checks that every node owned exactly one partition from the load's start to its end, that the
 * nodes read every event exactly once (per node, {@code skewer.events.in} equals its partition's
 * end offset; their sum equals the events sent), and, unless {@code --no-check}, the results
 * against the exact reference per (key, window).
 *
 * <p>Salted runs also report the imbalance from the moment the first hot-key table reached the
 * producer (the partitions' end offsets then, subtracted from the final ones): a table cannot exist
 * before the detectors have seen traffic, so the whole run carries that start-up. They also say
 * when the workloads' most frequent key came into the producer's table and reached its largest
 * fanout (sampled every 100 ms).
 */
@Command(
    name = "imbalance",
    mixinStandardHelpOptions = true,
    description = {
      "W3 (Zipf 0.8-2.0) and W2 on a real cluster: 8 partitions, 8 node and 1 coordinator"
          + " processes on the product jar, the broker in its own JVM; max/mean of"
          + " skewer.events.in over the nodes, unsalted vs salted (the SaltingPartitioner's"
          + " routing, following the published hot-key table).",
      "A fresh cluster per run; every event counted, every node on exactly one partition, results"
          + " checked against the exact reference."
    })
public final class ImbalanceBench implements Callable<Integer> {

  static final int PARTITIONS = 8;
  static final int NODES = 8;
  private static final Duration READY_TIMEOUT = Duration.ofMinutes(3);
  private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(10);
  private static final Duration RESULTS_TIMEOUT = Duration.ofMinutes(5);
  private static final long PROGRESS_EVERY_MS = 5_000;
  private static final String EVENTS_IN = "skewer_events_in_total";

  /**
   * The job's {@code watermark.finalizeAfterIdle}: W1's 1 s closes windows early (revisions follow)
   * whenever the live producer stalls for a second on a loaded machine.
   */
  static final Duration FINALIZE_AFTER_IDLE = Duration.ofSeconds(10);

  /**
   * The simulation's figures for the same workloads ({@code bench hotkeys}, seed 1, 2,000,000
   * events at 100,000 per simulated second; docs/benchmarks.md, "Hot keys"): plain hashing, the
   * dynamic loop over the whole run, the dynamic loop after its first 2 s.
   */
  private static final Map<String, String> SIMULATED =
      Map.of(
          "w3-0.8", "1.19 / 1.061 / 1.061",
          "w3-1.1", "1.99 / 1.031 / 1.036",
          "w3-1.5", "3.70 / 1.053 / 1.021",
          "w3-2.0", "5.20 / 1.107 / 1.029",
          "w2", "4.50 / 1.088 / 1.037");

  @Option(
      names = "--workloads",
      split = ",",
      defaultValue = "w3-0.8,w3-1.1,w3-1.5,w3-2.0,w2",
      description = "Workloads, comma-separated: w3-<zipf s>, w2. Default: ${DEFAULT-VALUE}.")
  List<String> workloads;

  @Option(
      names = "--events",
      defaultValue = "1000000",
      description = "Events per run. Default: ${DEFAULT-VALUE}.")
  long events;

  @Option(
      names = "--rate",
      defaultValue = "20000",
      description =
          "Events per second the producer sends (live: detection needs the cluster to see the"
              + " traffic as it is sent). Default: ${DEFAULT-VALUE}.")
  double rate;

  @Option(
      names = "--runs",
      defaultValue = "3",
      description =
          "Rounds; each round runs every workload unsalted, then salted, each on a fresh cluster."
              + " Default: ${DEFAULT-VALUE}.")
  int runs;

  @Option(
      names = "--unsalted-runs",
      defaultValue = "1",
      description =
          "Rounds that also run the unsalted case; later rounds run only the salted one. Unsalted"
              + " counts are the same in every run: Kafka's default partitioner is a function of"
              + " the key, and the workload is seeded. Default: ${DEFAULT-VALUE}.")
  int unsaltedRuns;

  @Option(
      names = "--seed",
      defaultValue = "1",
      description = "Workload seed (the same in every run). Default: ${DEFAULT-VALUE}.")
  long seed;

  @Option(
      names = "--jar",
      defaultValue = "launcher/target/skewer.jar",
      description = "The product jar the processes run. Default: ${DEFAULT-VALUE}.")
  Path jar;

  @Option(
      names = "--jvm-opts",
      defaultValue = "-Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:CICompilerCount=1",
      description =
          "JVM flags of each Skewer process, space-separated; {name} becomes the process's name."
              + " Default: '${DEFAULT-VALUE}' (9 JVMs share the machine: small heaps, C1"
              + " only to spend less CPU on the JIT).")
  String jvmOpts;

  @Mixin CoordinatorJvmOptions coordinatorJvm = new CoordinatorJvmOptions();

  @Mixin BrokerJvmOptions brokerJvm = new BrokerJvmOptions();

  @Option(
      names = "--process-arg",
      paramLabel = "ARG",
      description =
          "Appended to every Skewer process's command line, repeatable. Default: none (as"
              + " shipped).")
  List<String> processArgs = new ArrayList<>();

  @Option(
      names = "--hot-key-min-rate",
      paramLabel = "EVENTS_PER_S",
      description =
          "The coordinator's --hot-key-min-rate (the fanout policy's floor of the target rate per"
              + " sub-key, events per second). Default: the coordinator's (as shipped).")
  Double hotKeyMinRate;

  @Option(
      names = "--hot-key-target-share",
      paramLabel = "SHARE",
      description =
          "The coordinator's --hot-key-target-share (target rate per sub-key as a share of the"
              + " mean partition rate). Default: the coordinator's (as shipped).")
  Double hotKeyTargetShare;

  @Option(
      names = "--no-check",
      description = "Do not check the results against the exact reference (counts still are).")
  boolean noCheck;

  @Option(
      names = "--work-dir",
      description =
          "Broker data, job files and process logs. Default: a new directory under"
              + " target/bench-imbalance/.")
  Path workDir;

  /**
   * One run's figures.
   *
   * @param whole events read per node over the whole run
   * @param fromTable per node from the moment the first hot-key table reached the producer; null
   *     when unsalted or no table came
   * @param firstTableAfterMs load start → the first table at the producer; -1 when none
   * @param table the producer's table at the end (empty when unsalted)
   * @param assignment node → its partitions, at the load's start
   * @param oneEach every node owned exactly one partition, the same from the load's start to its
   *     end
   * @param counted every event read exactly once: per node events.in = its partition's end offset,
   *     and their sum = the events sent
   * @param check the results check's summary, or why there is none
   * @param exact the results matched the reference (true when not checked)
   */
  record RunFigures(
      String workload,
      boolean salted,
      int run,
      NodeLoads whole,
      NodeLoads fromTable,
      long firstTableAfterMs,
      HotKeyTable table,
      Map<String, Set<Integer>> assignment,
      boolean oneEach,
      boolean counted,
      String check,
      boolean exact,
      long readyMs,
      long loadMs,
      long totalMs,
      double maxLoad) {

    boolean ok() {
      return oneEach && counted && exact;
    }
  }

  private KafkaBrokerProcess broker;
  private Admin admin;
  private final List<String> aborted = new ArrayList<>();
  private final AtomicLong sentSoFar = new AtomicLong();
  private final AtomicReference<FirstTable> firstTable = new AtomicReference<>();

  /**
   * When the workloads' most frequent key ({@value #TOP_KEY}: W2's hot key, W3's Zipf rank 1) came
   * into the producer's table and when it reached its largest fanout, sampled every 100 ms: over a
   * whole run, the time until then counts most against max/mean.
   */
  private static final class TopKeySalting {
    private long firstMs = -1;
    private int firstFanout;
    private long largestMs = -1;
    private int largestFanout;

    void sample(HotKeyTable table, long sinceLoadStartMs) {
      HotKey top = table.get(TOP_KEY);
      if (top == null) {
        return;
      }
      if (firstMs < 0) {
        firstMs = sinceLoadStartMs;
        firstFanout = top.fanout();
      }
      if (top.fanout() > largestFanout) {
        largestFanout = top.fanout();
        largestMs = sinceLoadStartMs;
      }
    }

    String describe() {
      if (firstMs < 0) {
        return "the top key " + TOP_KEY + " never reached the producer's table";
      }
      return String.format(
          "the top key %s reached the producer's table %.1fs into the load (×%d), its largest"
              + " fanout ×%d at %.1fs",
          TOP_KEY, firstMs / 1000.0, firstFanout, largestFanout, largestMs / 1000.0);
    }
  }

  private static final String TOP_KEY = "ad0";

  /** When the first non-empty hot-key table was seen by the producer, and the offsets then. */
  private record FirstTable(long afterMs, long sent, String table, Map<Integer, Long> offsets) {}

  /**
   * On the sending thread, at a progress report (at most once a second): the first time the
   * producer's table is not empty, the events topic's end offsets. The sending thread waits for
   * them, so they hold what was sent before the table, give or take the batch in flight (linger 5
   * ms).
   */
  private void noteFirstTable(LoadProducer producer, String topic, long sent, long elapsedMs) {
    if (producer == null || firstTable.get() != null || producer.hotKeys().isEmpty()) {
      return;
    }
    try {
      Map<Integer, Long> offsets = JobTopics.byPartition(admin, topic);
      firstTable.set(new FirstTable(elapsedMs, sent, describe(producer.hotKeys(), 6), offsets));
    } catch (Exception e) {
      System.out.println("  (could not read the offsets at the first table: " + e + ")");
    }
  }

  @Override
  public Integer call() throws Exception {
    if (!BenchPaths.productJarExists(jar)) {
      return 2;
    }
    if (events < 1 || runs < 1 || !(rate > 0)) {
      System.err.println("--events and --runs must be >= 1, --rate > 0");
      return 2;
    }
    Map<String, WorkloadSpec> specs = new LinkedHashMap<>();
    for (String w : workloads) {
      WorkloadSpec spec = spec(w.trim(), events, seed);
      if (spec == null) {
        System.err.println("unknown workload '" + w + "': w3-<zipf s> (e.g. w3-1.5) or w2");
        return 2;
      }
      specs.put(w.trim(), spec);
    }
    jar = jar.toAbsolutePath();
    workDir = BenchPaths.workDir(workDir, "bench-imbalance");
    List<String> coordinatorArgs = coordinatorArgs();
    List<String> brokerOptions = brokerJvm.list();
    long benchStart = System.currentTimeMillis();
    System.out.printf(
        "Work dir %s; load average %.2f; %d cores.%n"
            + "Per run: %,d events at %,.0f/s, %d partitions, %d node + 1 coordinator processes (%s),"
            + " a fresh cluster; %d round(s) of %d workloads × unsalted, salted.%n"
            + "Coordinator's fanout policy: %s.%n",
        workDir,
        Stats.loadAverage(),
        Runtime.getRuntime().availableProcessors(),
        events,
        rate,
        PARTITIONS,
        NODES,
        jvmOpts + coordinatorJvm.describe(),
        runs,
        specs.size(),
        coordinatorArgs.isEmpty()
            ? "as shipped (FanoutPolicy.Config defaults)"
            : String.join(" ", coordinatorArgs) + " (the rest as shipped)");
    System.out.println("Starting the broker in its own JVM: " + String.join(" ", brokerOptions));
    List<RunFigures> all = new ArrayList<>();
    aborted.clear();
    try {
      broker = KafkaBrokerProcess.start(workDir.resolve("broker"), 0, brokerOptions);
      admin = Admin.create(KafkaSettings.of(broker.bootstrapServers()).adminConfig());
      for (int run = 1; run <= runs; run++) {
        for (Map.Entry<String, WorkloadSpec> w : specs.entrySet()) {
          for (boolean salted : new boolean[] {false, true}) {
            if (!salted && run > unsaltedRuns) {
              continue;
            }
            try {
              all.add(run(w.getKey(), w.getValue(), salted, run));
            } catch (Exception e) {
              String label = w.getKey() + (salted ? "-salted-" : "-unsalted-") + run;
              aborted.add(label);
              System.out.printf("[%s] ABORTED: %s%n", label, e);
            }
          }
        }
        printTable(all, specs.keySet(), run);
      }
    } finally {
      if (admin != null) {
        admin.close();
      }
      if (broker != null) {
        broker.stop();
      }
    }
    boolean ok = aborted.isEmpty() && all.stream().allMatch(RunFigures::ok);
    System.out.printf(
        "%nBench took %s; process logs and job files: %s%n",
        minutes(System.currentTimeMillis() - benchStart), workDir);
    System.out.println(
        ok
            ? "RESULT: every run: each node on exactly one partition, every event read exactly once"
                + (noCheck ? "." : ", results equal to the exact reference.")
            : "RESULT: FAILED CHECKS — see the runs marked above; their figures are not meaningful.");
    return ok ? 0 : 1;
  }

  /** The fanout policy's options this bench passes to the coordinator: none unless asked. */
  List<String> coordinatorArgs() {
    List<String> args = new ArrayList<>();
    if (hotKeyMinRate != null) {
      args.addAll(List.of("--hot-key-min-rate", Double.toString(hotKeyMinRate)));
    }
    if (hotKeyTargetShare != null) {
      args.addAll(List.of("--hot-key-target-share", Double.toString(hotKeyTargetShare)));
    }
    return args;
  }

  /** {@code w3-<s>} or {@code w2}; null when unknown. */
  static WorkloadSpec spec(String id, long events, long seed) {
    if (id.equals("w2")) {
      return WorkloadSpec.w2(events, seed);
    }
    if (id.startsWith("w3-")) {
      try {
        return WorkloadSpec.w3(events, seed, Double.parseDouble(id.substring(3)));
      } catch (IllegalArgumentException e) {
        return null;
      }
    }
    return null;
  }

  private RunFigures run(String workload, WorkloadSpec spec, boolean salted, int run)
      throws Exception {
    String mode = salted ? "salted" : "unsalted";
    String label = workload + "-" + mode + "-" + run;
    String jobName = "imb-" + workload.replace(".", "") + "-" + (salted ? "s" : "u") + run;
    DeployedCluster cluster =
        DeployedCluster.plan(
            jar,
            JvmFlags.split(jvmOpts),
            coordinatorJvm.list(),
            processArgs,
            coordinatorArgs(),
            jobName,
            jobName + ".events",
            PARTITIONS,
            broker.bootstrapServers(),
            NODES,
            1,
            workDir,
            null,
            label);
    cluster.finalizeAfterIdle(FINALIZE_AFTER_IDLE);
    JobSpec job = cluster.job;
    String topic = job.topics().events();
    broker.createTopic(topic, PARTITIONS, Map.of(TopicConfig.RETENTION_MS_CONFIG, "-1"));
    NodeGroup group = new NodeGroup(admin, job);
    System.out.printf(
        "%n[%s] %s: launching %d nodes + 1 coordinator (load average %.2f)%n",
        label, spec.name(), NODES, Stats.loadAverage());
    long launchMs = System.currentTimeMillis();
    double maxLoad = Stats.loadAverage();
    cluster.launch();
    ExecutorService sender = Executors.newSingleThreadExecutor(r -> new Thread(r, "imb-sender"));
    try {
      awaitUntil("every process ready", cluster, READY_TIMEOUT, cluster::pollReady);
      awaitUntil(
          "the node group stable with every partition assigned",
          cluster,
          READY_TIMEOUT,
          () -> group.settled(NODES));
      long readyMs = System.currentTimeMillis() - launchMs;
      Map<String, Set<Integer>> before = assignment(cluster, group);
      System.out.printf(
          "  ready and settled after %.1fs; partitions: %s%n", readyMs / 1000.0, before);
      ExactReference reference =
          noCheck
              ? null
              : ExactReference.of(
                  Duration.ofSeconds(10), Duration.ofSeconds(2), Duration.ZERO, PARTITIONS, null);
      AtomicReference<LoadProducer> producerRef = new AtomicReference<>();
      firstTable.set(null);
      LoadProducer producer =
          LoadProducer.builder(broker.bootstrapServers(), topic)
              .job(job)
              .salting(salted)
              .rate(rate)
              .reference(reference)
              .progress(
                  p -> {
                    sentSoFar.set(p.sent());
                    if (salted) {
                      noteFirstTable(producerRef.get(), topic, p.sent(), p.elapsed().toMillis());
                    }
                  })
              .build();
      producerRef.set(producer);
      LoadSummary sent;
      HotKeyTable table;
      sentSoFar.set(0);
      long loadStart = System.currentTimeMillis();
      TopKeySalting topKey = new TopKeySalting();
      try {
        CompletableFuture<LoadSummary> load =
            CompletableFuture.supplyAsync(() -> producer.run(Workload.of(spec)), sender);
        long lastProgress = loadStart;
        while (!load.isDone()) {
          failIfDead(cluster);
          long now = System.currentTimeMillis();
          if (salted) {
            topKey.sample(producer.hotKeys(), now - loadStart);
          }
          if (now - lastProgress >= PROGRESS_EVERY_MS) {
            lastProgress = now;
            maxLoad = Math.max(maxLoad, Stats.loadAverage());
            long sentNow = sentSoFar.get();
            String lag = lagLine(cluster, before, JobTopics.byPartition(admin, topic));
            System.out.printf(
                "  %5.1fs: sent %,d; %s; %s; load %.2f%n",
                (System.currentTimeMillis() - loadStart) / 1000.0,
                sentNow,
                lag,
                salted ? "producer's table " + describe(producer.hotKeys(), 3) : "unsalted",
                Stats.loadAverage());
          }
          Thread.sleep(100);
        }
        sent = load.get();
        table = producer.hotKeys();
      } finally {
        producer.stop();
        producer.close();
      }
      long loadMs = System.currentTimeMillis() - loadStart;
      FirstTable first = firstTable.get();
      long firstTableAfterMs = first == null ? -1 : first.afterMs;
      Map<Integer, Long> offsetsAtTable = first == null ? null : first.offsets;
      if (first != null) {
        System.out.printf(
            "  the first hot-key table reached the producer %.1fs into the load, after %,d events:"
                + " %s%n",
            first.afterMs / 1000.0, first.sent, first.table);
      } else if (salted) {
        System.out.println("  no hot-key table reached the producer during the load");
      }
      if (salted) {
        System.out.println("  " + topKey.describe());
      }
      System.out.printf(
          "  sent %,d events in %.1fs (%,.0f/s; %,d failed)%s%n",
          sent.sent(),
          loadMs / 1000.0,
          sent.eventsPerSecond(),
          sent.failed(),
          salted
              ? String.format(
                  "; %,d with a salted key; table at the end: %s",
                  producer.salted(), describe(table, 8))
              : "");
      awaitUntil(
          "the nodes to read all " + sent.sent() + " events",
          cluster,
          DRAIN_TIMEOUT,
          () -> eventsRead(cluster) >= sent.sent());
      Map<Integer, Long> ends = JobTopics.byPartition(admin, topic);
      NodeLoads whole = eventsIn(cluster);
      Map<String, Set<Integer>> after = assignment(cluster, group);
      boolean oneEach =
          before.equals(after) && before.values().stream().allMatch(ps -> ps.size() == 1);
      if (!oneEach) {
        System.out.printf(
            "  NOT ONE PARTITION PER NODE: %s at the start, %s at the end%n", before, after);
      }
      boolean counted = whole.total() == sent.sent() && sent.failed() == 0;
      for (Map.Entry<String, Long> e : whole.events().entrySet()) {
        Set<Integer> ps = before.get(e.getKey());
        long offsets = ps.stream().mapToLong(p -> ends.getOrDefault(p, 0L)).sum();
        if (offsets != e.getValue()) {
          counted = false;
          System.out.printf(
              "  %s read %,d events but its partitions %s hold %,d%n",
              e.getKey(), e.getValue(), ps, offsets);
        }
      }
      if (whole.total() != sent.sent()) {
        System.out.printf(
            "  the nodes read %,d events, %,d were sent%n", whole.total(), sent.sent());
      }
      NodeLoads fromTable = null;
      if (offsetsAtTable != null && oneEach) {
        Map<String, Long> since = new TreeMap<>();
        for (Map.Entry<String, Set<Integer>> e : before.entrySet()) {
          int p = e.getValue().iterator().next();
          since.put(e.getKey(), ends.get(p) - offsetsAtTable.get(p));
        }
        fromTable = new NodeLoads(since);
      }
      String check = "not checked (--no-check)";
      boolean exact = true;
      if (reference != null) {
        long expected = reference.windows().size();
        awaitUntil(
            "all " + expected + " results",
            cluster,
            RESULTS_TIMEOUT,
            () -> {
              try {
                return JobTopics.total(admin, job.topics().results()) >= expected;
              } catch (Exception e) {
                return false;
              }
            });
        ResultCheck.Report report =
            ResultCheck.check(
                reference,
                TopicReader.readAll(
                    broker.bootstrapServers(), job.topics().results(), Duration.ofMinutes(2)),
                "key",
                "value",
                false);
        exact = report.ok();
        check = report.summary();
        report.problems().stream().limit(10).forEach(p -> System.out.println("    " + p));
      }
      long totalMs = System.currentTimeMillis() - launchMs;
      maxLoad = Math.max(maxLoad, Stats.loadAverage());
      RunFigures f =
          new RunFigures(
              workload,
              salted,
              run,
              whole,
              fromTable,
              firstTableAfterMs,
              table,
              before,
              oneEach,
              counted,
              check,
              exact,
              readyMs,
              loadMs,
              totalMs,
              maxLoad);
      printRun(label, f);
      return f;
    } finally {
      sender.shutdownNow();
      cluster.stop();
      cluster.all().forEach(SkewerChild::kill);
      JobTopics.delete(admin, job, true);
    }
  }

  /** Node id → its events partitions, for every node process (empty set when none). */
  private static Map<String, Set<Integer>> assignment(DeployedCluster cluster, NodeGroup group)
      throws Exception {
    Map<String, Set<Integer>> byClient = group.assignment();
    Map<String, Set<Integer>> byNode = new TreeMap<>();
    for (SkewerChild c : cluster.nodes()) {
      byNode.put(c.name, byClient.getOrDefault(NodeGroup.clientId(c.name), Set.of()));
    }
    return byNode;
  }

  /** Each node's {@code skewer.events.in}, from its {@code /metrics}. */
  private static NodeLoads eventsIn(DeployedCluster cluster) throws IOException {
    Map<String, Long> events = new TreeMap<>();
    for (SkewerChild c : cluster.nodes()) {
      String text;
      try {
        text = c.metrics();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted reading the metrics of " + c.name, e);
      }
      double n = PrometheusText.byLabel(text, EVENTS_IN, "node").getOrDefault(c.name, 0.0);
      events.put(c.name, Math.round(n));
    }
    return new NodeLoads(events);
  }

  /**
   * How far the nodes are behind what was written to their partitions: the total read and the node
   * furthest behind, or why it cannot be said.
   */
  private static String lagLine(
      DeployedCluster cluster, Map<String, Set<Integer>> assignment, Map<Integer, Long> ends) {
    NodeLoads read;
    try {
      read = eventsIn(cluster);
    } catch (IOException e) {
      return "a node did not answer /metrics: " + e.getMessage();
    }
    String worst = "-";
    long worstLag = -1;
    for (Map.Entry<String, Long> e : read.events().entrySet()) {
      long written =
          assignment.getOrDefault(e.getKey(), Set.of()).stream()
              .mapToLong(p -> ends.getOrDefault(p, 0L))
              .sum();
      if (written - e.getValue() > worstLag) {
        worstLag = written - e.getValue();
        worst = e.getKey();
      }
    }
    return String.format(
        "the nodes read %,d, furthest behind %s by %,d", read.total(), worst, worstLag);
  }

  /** The sum of the nodes' events.in; -1 when a node does not answer. */
  private static long eventsRead(DeployedCluster cluster) {
    try {
      return eventsIn(cluster).total();
    } catch (IOException e) {
      return -1;
    }
  }

  private static String describe(HotKeyTable table, int top) {
    if (table.isEmpty()) {
      return "empty";
    }
    List<HotKey> keys = new ArrayList<>(table.entries());
    keys.sort(
        (a, b) -> a.fanout() != b.fanout() ? b.fanout() - a.fanout() : a.key().compareTo(b.key()));
    StringBuilder sb = new StringBuilder(keys.size() + " keys");
    keys.stream()
        .limit(top)
        .forEach(k -> sb.append(' ').append(k.key()).append('×').append(k.fanout()));
    return sb.append(keys.size() > top ? " ..." : "").toString();
  }

  private void printRun(String label, RunFigures f) {
    System.out.printf(
        "[%s] max/mean %.3f over the whole run%s; %s%s; ready %.1fs, load %.1fs, run %.1fs;"
            + " max load %.2f%n",
        label,
        f.whole.maxOverMean(),
        f.fromTable == null
            ? ""
            : String.format(
                ", %.3f from the first table (after %.1fs) on",
                f.fromTable.maxOverMean(), f.firstTableAfterMs / 1000.0),
        f.oneEach ? "one partition per node" : "NOT ONE PARTITION PER NODE",
        f.counted ? ", every event read once" : ", EVENTS MISCOUNTED",
        f.readyMs / 1000.0,
        f.loadMs / 1000.0,
        f.totalMs / 1000.0,
        f.maxLoad);
    System.out.println("  events.in per node: " + f.whole);
    System.out.println("  check: " + f.check);
  }

  private void printTable(List<RunFigures> all, Set<String> order, int rounds) {
    System.out.printf(
        "%n===== Imbalance on a real cluster: max/mean of skewer.events.in over %d node processes,"
            + " %d partitions, %,d events per run at %,.0f/s, seed %d; median [min–max] of %d"
            + " run(s) =====%n",
        NODES, PARTITIONS, events, rate, seed, rounds);
    System.out.println(
        "| workload | unsalted | salted, whole run | salted, from the first table on"
            + " | first table at the producer after (s) | simulated: plain / dynamic whole /"
            + " dynamic ≥ 2 s |");
    System.out.println("|---|---|---|---|---|---|");
    for (String w : order) {
      List<RunFigures> u = select(all, r -> r.workload.equals(w) && !r.salted);
      List<RunFigures> s = select(all, r -> r.workload.equals(w) && r.salted);
      System.out.printf(
          "| %s | %s | %s | %s | %s | %s |%n",
          w.toUpperCase(java.util.Locale.ROOT).replace("W3-", "W3 s="),
          Stats.medianRange(u.stream().map(r -> r.whole.maxOverMean()).toList(), "%.3f"),
          Stats.medianRange(s.stream().map(r -> r.whole.maxOverMean()).toList(), "%.3f"),
          Stats.medianRange(
              s.stream()
                  .filter(r -> r.fromTable != null)
                  .map(r -> r.fromTable.maxOverMean())
                  .toList(),
              "%.3f"),
          Stats.medianRange(
              s.stream()
                  .filter(r -> r.firstTableAfterMs >= 0)
                  .map(r -> r.firstTableAfterMs / 1000.0)
                  .toList(),
              "%.1f"),
          SIMULATED.getOrDefault(w, "-"));
    }
    List<String> failed =
        all.stream()
            .filter(r -> !r.ok())
            .map(r -> r.workload + (r.salted ? "-salted-" : "-unsalted-") + r.run)
            .toList();
    System.out.printf(
        "Runs: %d measured, of which %d failed a check (one partition per node, every event read"
            + " once, results exact) and are left out above%s; %d aborted%s.%n",
        all.size(),
        failed.size(),
        failed.isEmpty() ? "" : ": " + failed,
        aborted.size(),
        aborted.isEmpty() ? "" : ": " + aborted);
    System.out.printf(
        "Durations per run (launch → checked), s: %s; load phase %s.%n",
        Stats.medianRange(all.stream().map(r -> r.totalMs / 1000.0).toList(), "%.0f"),
        Stats.medianRange(all.stream().map(r -> r.loadMs / 1000.0).toList(), "%.0f"));
  }

  private static List<RunFigures> select(List<RunFigures> all, Predicate<RunFigures> p) {
    return all.stream().filter(RunFigures::ok).filter(p).toList();
  }

  private static void failIfDead(DeployedCluster cluster) {
    SkewerChild dead = cluster.dead();
    if (dead != null) {
      throw new IllegalStateException(
          dead.name + " exited; the end of " + dead.logFile + ":\n" + dead.tail(40));
    }
  }

  /** Polls every 200 ms; fails naming {@code what} after {@code timeout} or if a process died. */
  private void awaitUntil(
      String what, DeployedCluster cluster, Duration timeout, BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeout.toMillis();
    while (!condition.getAsBoolean()) {
      failIfDead(cluster);
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException(
            "timed out after " + timeout + " waiting for " + what + "; logs in " + workDir);
      }
      Thread.sleep(200);
    }
  }

  private static String minutes(long ms) {
    return String.format("%d min %02d s", ms / 60_000, (ms / 1000) % 60);
  }
}

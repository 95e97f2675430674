package dev.skewer.benchmarks.deployed;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.HazelcastInstance;
import dev.skewer.core.cluster.HazelcastMembers;
import dev.skewer.core.job.JobNames;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.launcher.verify.ResultCheck;
import dev.skewer.loadgen.produce.LoadProducer;
import dev.skewer.loadgen.produce.LoadSummary;
import dev.skewer.loadgen.reference.ExactReference;
import dev.skewer.loadgen.workload.Workload;
import dev.skewer.loadgen.workload.WorkloadSpec;
import dev.skewer.testkit.kafka.KafkaBrokerProcess;
import dev.skewer.testkit.kafka.StreamWatch;
import dev.skewer.testkit.kafka.TopicReader;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code skewer bench failover}: kill -9 of a node in the deployed shape (2 {@code skewer node}, 1
 * {@code skewer coordinator} on the product jar, Hazelcast on, settings as shipped unless {@code
 * --process-arg} says otherwise) under a steady live W1 load, timed from the outside, several
 * times; then the results are checked against the exact reference of everything sent.
 *
 * <p>Per kill at t0 of the node owning partitions P: <b>owned</b> — the node group is stable
 * without it and every partition is assigned; <b>flowing</b> — for every p in P, a Watermark from a
 * newer epoch than the dead owner's has reached the watermark p had at t0 (its checkpoint restored,
 * the input since replayed: p's data reaches the coordinator again); <b>result delay</b> — for the
 * windows due (end + 2 s delay) between t0 and then, or else the first window due after t0, how
 * much later than due their first result came. The victim is then started again and the cluster
 * left to settle before the next kill.
 */
@Command(
    name = "failover",
    mixinStandardHelpOptions = true,
    description =
        "kill -9 of a node in the deployed shape under a live W1 load: time until its partitions'"
            + " data flows again, several kills; results checked against the reference.")
public final class FailoverBench implements java.util.concurrent.Callable<Integer> {

  private static final long WINDOW_MS = 10_000;
  private static final long DELAY_MS = 2_000;
  private static final Duration TIMEOUT = Duration.ofMinutes(3);

  @Option(
      names = "--kills",
      defaultValue = "10",
      description = "Kills measured. Default: ${DEFAULT-VALUE}.")
  int kills;

  @Option(
      names = "--rate",
      defaultValue = "10000",
      description = "Live W1 events per second. Default: ${DEFAULT-VALUE}.")
  double rate;

  @Option(
      names = "--steady",
      defaultValue = "15",
      description =
          "Seconds the cluster runs undisturbed before each kill (after a restart has settled)."
              + " Default: ${DEFAULT-VALUE}.")
  int steadySeconds;

  @Option(
      names = "--seed",
      defaultValue = "1",
      description = "Workload seed. Default: ${DEFAULT-VALUE}.")
  long seed;

  @Option(
      names = "--jar",
      defaultValue = "launcher/target/skewer.jar",
      description = "The product jar. Default: ${DEFAULT-VALUE}.")
  Path jar;

  @Option(
      names = "--jvm-opts",
      defaultValue = SkewerChild.DEFAULT_JVM_OPTS,
      description =
          "JVM flags of each Skewer process, space-separated; {name} becomes the process's name."
              + " Default: '${DEFAULT-VALUE}'.")
  String jvmOpts;

  @Mixin ClassDataOptions classData = new ClassDataOptions();

  @Mixin CoordinatorJvmOptions coordinatorJvm = new CoordinatorJvmOptions();

  @Option(
      names = "--process-arg",
      paramLabel = "ARG",
      description =
          "Appended to every Skewer process's command line, repeatable (e.g."
              + " --process-arg=-X --process-arg=session.timeout.ms=6000). Default: none.")
  List<String> processArgs = new ArrayList<>();

  @Option(
      names = "--work-dir",
      description = "Broker data and logs. Default: a new directory under target/bench-failover/.")
  Path workDir;

  /**
   * One kill's figures, ms after the kill.
   *
   * @param hazelcastMs when a Hazelcast client of the cluster saw the victim's member leave
   */
  record Kill(
      String victim,
      Set<Integer> partitions,
      long hazelcastMs,
      long ownedMs,
      long flowingMs,
      long resultMs) {}

  private final Map<String, Long> memberLeftMs = new java.util.concurrent.ConcurrentHashMap<>();

  private Admin admin;
  private JobSpec job;
  private NodeGroup nodeGroup;

  @Override
  public Integer call() throws Exception {
    if (!BenchPaths.productJarExists(jar)) {
      return 2;
    }
    if (!classData.usable()) {
      return 2;
    }
    jar = jar.toAbsolutePath();
    workDir = BenchPaths.workDir(workDir, "bench-failover");
    System.out.printf(
        "Work dir %s; load average %.2f. Starting the broker in its own JVM...%n",
        workDir, Stats.loadAverage());
    List<Kill> results = new ArrayList<>();
    List<Double> loads = new ArrayList<>();
    boolean exact;
    try (KafkaBrokerProcess broker =
        KafkaBrokerProcess.start(
            workDir.resolve("broker"), 0, KafkaBrokerProcess.KAFKA_DEFAULT_JVM_OPTIONS)) {
      admin = Admin.create(KafkaSettings.of(broker.bootstrapServers()).adminConfig());
      DeployedCluster cluster =
          DeployedCluster.plan(
              jar,
              classData.withArchive(JvmFlags.split(jvmOpts), jar, workDir),
              coordinatorJvm.list(),
              processArgs,
              List.of(),
              "w1-f",
              "w1-f.events",
              DeployedCluster.W1_PARTITIONS,
              broker.bootstrapServers(),
              2,
              1,
              workDir,
              null,
              "failover");
      job = cluster.job;
      nodeGroup = new NodeGroup(admin, job);
      broker.createTopic(job.topics().events(), job.topics().eventsPartitions(), Map.of());
      ExactReference reference =
          ExactReference.of(Duration.ofSeconds(10), Duration.ofSeconds(2), Duration.ZERO, 4, null);
      try {
        System.out.println(
            "Launching 2 nodes + 1 coordinator (" + jvmOpts + coordinatorJvm.describe() + ") ...");
        cluster.launch();
        awaitUntil("every process ready", cluster::pollReady);
        awaitUntil("the node group settled", () -> settled(2));
        System.out.printf("Sending live W1 at %,.0f events/s...%n", rate);
        LoadProducer producer =
            LoadProducer.builder(broker.bootstrapServers(), job.topics().events())
                .job(job)
                .reference(reference)
                .rate(rate)
                .build();
        CompletableFuture<LoadSummary> load =
            CompletableFuture.supplyAsync(
                () ->
                    producer.run(
                        Workload.live(WorkloadSpec.w1(Long.MAX_VALUE, seed), Clock.systemUTC())));
        HazelcastInstance client = hazelcastClient(cluster);
        try (StreamWatch watch =
            new StreamWatch(
                broker.bootstrapServers(), job.topics().partials(), job.topics().results())) {
          Thread.sleep(steadySeconds * 1000L);
          for (int k = 1; k <= kills; k++) {
            SkewerChild victim = cluster.nodes().get((k - 1) % cluster.nodes().size());
            loads.add(Stats.loadAverage());
            Kill kill = killAndTime(victim, watch);
            results.add(kill);
            System.out.printf(
                "kill %d/%d: %s owning %s — Hazelcast noticed after %,d ms, owned again after %,d"
                    + " ms, flowing after %,d ms, results %s; load %.2f%n",
                k,
                kills,
                kill.victim,
                kill.partitions,
                kill.hazelcastMs,
                kill.ownedMs,
                kill.flowingMs,
                kill.resultMs == Long.MIN_VALUE
                    ? "(no window due)"
                    : String.format("%,d ms after due", kill.resultMs),
                Stats.loadAverage());
            victim.launch();
            awaitUntil(victim.name + " ready again", victim::pollReady);
            awaitUntil("the node group settled", () -> settled(2));
            Thread.sleep(steadySeconds * 1000L);
          }
        } finally {
          client.shutdown();
          producer.stop();
          LoadSummary sent = load.get(2, TimeUnit.MINUTES);
          producer.close();
          System.out.printf("Sent %,d events; waiting for the last windows...%n", sent.sent());
        }
        exact = check(reference, broker.bootstrapServers());
      } finally {
        cluster.stop();
        cluster.all().forEach(SkewerChild::kill);
        admin.close();
      }
    }
    System.out.printf(
        "%n===== kill -9 of 1 of 2 nodes, live W1 at %,.0f events/s, %d kills (%s%s),"
            + " median [min–max]; load average %s =====%n",
        rate,
        results.size(),
        jvmOpts + coordinatorJvm.describe() + "; " + classData.describe(),
        processArgs.isEmpty() ? ", Kafka client settings as shipped" : ", " + processArgs,
        Stats.medianRange(loads, "%.1f"));
    System.out.printf(
        "  Hazelcast noticed the dead member (a client's membership event): %s ms%n",
        Stats.medianRange(results.stream().map(k -> (double) k.hazelcastMs).toList(), "%,.0f"));
    System.out.printf(
        "  partitions owned again: %s ms%n",
        Stats.medianRange(results.stream().map(k -> (double) k.ownedMs).toList(), "%,.0f"));
    System.out.printf(
        "  their data flowing again (new epoch at the old watermark): %s ms%n",
        Stats.medianRange(results.stream().map(k -> (double) k.flowingMs).toList(), "%,.0f"));
    List<Double> delays =
        results.stream()
            .filter(k -> k.resultMs != Long.MIN_VALUE)
            .map(k -> (double) k.resultMs)
            .toList();
    System.out.printf(
        "  results of windows due meanwhile, after due: %s ms%n",
        Stats.medianRange(delays, "%,.0f"));
    System.out.println(
        "  every kill (owned/flowing ms): "
            + results.stream().map(k -> k.ownedMs + "/" + k.flowingMs).toList());
    System.out.println(
        exact
            ? "RESULT: every result matched the reference exactly after the kills."
            : "RESULT: MISMATCH after the kills — see above.");
    return exact ? 0 : 1;
  }

  private Kill killAndTime(SkewerChild victim, StreamWatch watch) throws Exception {
    Set<Integer> partitions = partitionsOf(victim);
    long t0 = System.currentTimeMillis();
    Map<Integer, Long> wmBefore = new TreeMap<>();
    Map<Integer, Long> epochBefore = new TreeMap<>();
    for (int p : partitions) {
      long wm = Long.MIN_VALUE;
      long epoch = 0;
      for (StreamWatch.Seen s : watch.watermarks(p)) {
        if (s.seenMs() <= t0 && !s.watermark().idle()) {
          wm = Math.max(wm, s.watermark().watermarkMs());
          epoch = Math.max(epoch, s.watermark().epoch());
        }
      }
      wmBefore.put(p, wm);
      epochBefore.put(p, epoch);
    }

    memberLeftMs.remove(victim.name);
    victim.kill();

    awaitUntil("the node group without " + victim.name, () -> settled(1));
    long owned = System.currentTimeMillis() - t0;
    awaitUntil("Hazelcast to notice " + victim.name, () -> memberLeftMs.containsKey(victim.name));
    long hazelcast = memberLeftMs.get(victim.name) - t0;
    long[] flowing = {0};
    awaitUntil(
        "the partitions of " + victim.name + " flowing again",
        () -> {
          long worst = 0;
          for (int p : partitions) {
            long first = Long.MAX_VALUE;
            for (StreamWatch.Seen s : watch.watermarks(p)) {
              Long wm = wmBefore.get(p);
              if (s.seenMs() > t0
                  && s.watermark().epoch() > epochBefore.get(p)
                  && !s.watermark().idle()
                  && s.watermark().watermarkMs() >= wm) {
                first = s.seenMs();
                break;
              }
            }
            if (first == Long.MAX_VALUE) {
              return false;
            }
            worst = Math.max(worst, first - t0);
          }
          flowing[0] = worst;
          return true;
        });
    // windows due (end + delay, event time = wall clock) from the kill to the data flowing again;
    // if none, the first one due after the kill
    long firstDue = Math.floorDiv(t0 - DELAY_MS, WINDOW_MS) * WINDOW_MS; // a window start
    List<Long> due = new ArrayList<>();
    for (long w = firstDue; w + WINDOW_MS + DELAY_MS <= t0 + flowing[0]; w += WINDOW_MS) {
      if (w + WINDOW_MS + DELAY_MS >= t0) {
        due.add(w);
      }
    }
    if (due.isEmpty()) {
      long w = firstDue;
      while (w + WINDOW_MS + DELAY_MS < t0) {
        w += WINDOW_MS;
      }
      due.add(w);
    }
    long[] delay = {Long.MIN_VALUE};
    awaitUntil(
        "results of the windows due during the failover",
        () -> {
          long worst = Long.MIN_VALUE;
          for (long w : due) {
            var r = watch.firstResult(w);
            if (r.isEmpty()) {
              return false;
            }
            worst = Math.max(worst, r.get() - (w + WINDOW_MS + DELAY_MS));
          }
          delay[0] = worst;
          return true;
        });
    return new Kill(victim.name, partitions, hazelcast, owned, flowing[0], delay[0]);
  }

  /** A Hazelcast client of the job's cluster noting when each named member leaves. */
  private HazelcastInstance hazelcastClient(DeployedCluster cluster) {
    ClientConfig config = new ClientConfig();
    config.setClusterName(JobNames.of(job).hazelcastClusterName());
    config.setProperty("hazelcast.logging.type", "none");
    for (SkewerChild c : cluster.all()) {
      config.getNetworkConfig().addAddress("127.0.0.1:" + c.hazelcastPort);
    }
    HazelcastInstance client = HazelcastClient.newHazelcastClient(config);
    client
        .getCluster()
        .addMembershipListener(
            new MembershipListener() {
              @Override
              public void memberAdded(MembershipEvent event) {}

              @Override
              public void memberRemoved(MembershipEvent event) {
                String name = event.getMember().getAttribute(HazelcastMembers.NAME_ATTRIBUTE);
                if (name != null) {
                  memberLeftMs.put(name, System.currentTimeMillis());
                }
              }
            });
    return client;
  }

  /** The events partitions the group assigned to {@code node}'s consumer. */
  private Set<Integer> partitionsOf(SkewerChild node) throws Exception {
    Set<Integer> partitions = nodeGroup.partitionsOf(node.name);
    if (partitions.isEmpty()) {
      throw new IllegalStateException(node.name + " owns no partition of " + job.topics().events());
    }
    return partitions;
  }

  /** Whether the node group is stable with {@code members} members and every partition assigned. */
  private boolean settled(int members) {
    return nodeGroup.settled(members);
  }

  /** Polls every 50 ms; fails naming {@code what} after 3 minutes. */
  private void awaitUntil(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.currentTimeMillis() + TIMEOUT.toMillis();
    while (!condition.getAsBoolean()) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("timed out waiting for " + what + "; logs in " + workDir);
      }
      Thread.sleep(50);
    }
  }

  /** Waits for the last windows' results, then compares every (key, window) with the reference. */
  private boolean check(ExactReference reference, String bootstrap) throws Exception {
    long expected = reference.windows().size();
    long deadline = System.currentTimeMillis() + TIMEOUT.toMillis();
    while (endOffset(job.topics().results()) < expected) {
      if (System.currentTimeMillis() > deadline) {
        System.out.printf(
            "  only %,d of %,d results after %s%n",
            endOffset(job.topics().results()), expected, TIMEOUT);
        break;
      }
      Thread.sleep(500);
    }
    List<ConsumerRecord<byte[], byte[]>> records =
        TopicReader.readAll(bootstrap, job.topics().results(), Duration.ofMinutes(2));
    ResultCheck.Report report = ResultCheck.check(reference, records, "key", "value", false);
    System.out.println("  check: " + report.summary());
    report.problems().stream().limit(10).forEach(p -> System.out.println("    " + p));
    return report.ok();
  }

  private long endOffset(String topic) throws Exception {
    return JobTopics.total(admin, topic);
  }
}

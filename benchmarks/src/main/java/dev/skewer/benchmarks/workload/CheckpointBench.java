package dev.skewer.benchmarks.workload;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.core.checkpoint.Checkpoint;
import dev.skewer.core.checkpoint.HazelcastCheckpointStore;
import dev.skewer.core.cluster.ClusterSettings;
import dev.skewer.core.cluster.HazelcastMembers;
import dev.skewer.core.job.JobNames;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.core.net.FreePorts;
import dev.skewer.core.window.SliceAssigner;
import dev.skewer.launcher.cli.JobResources;
import dev.skewer.node.aggregate.PartitionAggregator;
import dev.skewer.testkit.kafka.EmbeddedKafka;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code skewer bench checkpoint}: the cost of a node checkpoint with 10,000 and 100,000 open (key,
 * window) aggregates of the W1 job (count, sum, HLL++, t-digest): snapshot on the event loop, the
 * store's save (two Hazelcast members, backup count 1, mirrored synchronously to the compacted
 * Kafka topic), load and restore.
 */
@Command(
    name = "checkpoint",
    mixinStandardHelpOptions = true,
    description = "Checkpoint duration and size for 10,000 and 100,000 open keys (W1 job).")
public final class CheckpointBench implements Callable<Integer> {

  @Option(
      names = "--keys",
      split = ",",
      defaultValue = "10000,100000",
      description = "Open keys. Default: ${DEFAULT-VALUE}.")
  List<Integer> keys;

  @Option(
      names = "--events-per-key",
      defaultValue = "10",
      description = "Events per key. Default: ${DEFAULT-VALUE}.")
  int eventsPerKey;

  @Option(
      names = "--runs",
      defaultValue = "5",
      description = "Runs per size. Default: ${DEFAULT-VALUE}.")
  int runs;

  @Override
  public Integer call() throws Exception {
    JobSpec job = JobResources.load("w1.yaml");
    SliceAssigner windows = SliceAssigner.of(job.window());
    System.out.println("Starting a broker and two Hazelcast members...");
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      int p1 = FreePorts.next();
      int p2 = FreePorts.next();
      List<String> members = List.of("127.0.0.1:" + p1, "127.0.0.1:" + p2);
      HazelcastInstance a =
          HazelcastMembers.start(ClusterSettings.loopback("bench", p1, members), "a", "node");
      HazelcastInstance b =
          HazelcastMembers.start(ClusterSettings.loopback("bench", p2, members), "b", "node");
      try (HazelcastCheckpointStore store =
          HazelcastCheckpointStore.create(
              a,
              KafkaSettings.of(kafka.bootstrapServers()),
              JobNames.of(job),
              "bench.checkpoints",
              true)) {
        for (int n : keys) {
          PartitionAggregator agg = build(job, windows, n);
          List<Double> snapMs = new ArrayList<>();
          List<Double> saveMs = new ArrayList<>();
          List<Double> loadMs = new ArrayList<>();
          int size = 0;
          for (int run = 0; run <= runs; run++) {
            long t0 = System.nanoTime();
            byte[] state = agg.snapshot();
            long t1 = System.nanoTime();
            store.save("bench/" + n, new Checkpoint(1, 1, System.currentTimeMillis(), state));
            long t2 = System.nanoTime();
            Checkpoint back = store.load("bench/" + n).orElseThrow();
            PartitionAggregator.restore(back.state(), 2, windows, 2_000, 0, job.toSketchSpec());
            long t3 = System.nanoTime();
            size = state.length;
            if (run > 0) {
              snapMs.add((t1 - t0) / 1e6);
              saveMs.add((t2 - t1) / 1e6);
              loadMs.add((t3 - t2) / 1e6);
            }
          }
          System.out.printf(
              "%,d open keys x %d events: checkpoint %,d bytes (%.0f B/key); snapshot (event loop) median %.1f ms [%.1f-%.1f];"
                  + " save (Hazelcast + Kafka mirror) median %.1f ms [%.1f-%.1f]; load + restore median %.1f ms%n",
              n,
              eventsPerKey,
              size,
              size / (double) n,
              EngineBench.median(snapMs),
              Collections.min(snapMs),
              Collections.max(snapMs),
              EngineBench.median(saveMs),
              Collections.min(saveMs),
              Collections.max(saveMs),
              EngineBench.median(loadMs));
        }
      } finally {
        b.shutdown();
        a.shutdown();
      }
    }
    return 0;
  }

  private PartitionAggregator build(JobSpec job, SliceAssigner windows, int n) {
    PartitionAggregator agg = new PartitionAggregator(0, 1, windows, 2_000, 0, job.toSketchSpec());
    SplittableRandom rnd = new SplittableRandom(n);
    double[] numeric = new double[1];
    long t0 = 1_700_000_000_000L;
    for (int k = 0; k < n; k++) {
      String key = "ad" + k;
      for (int e = 0; e < eventsPerKey; e++) {
        double v = Math.exp(Math.log(20) + rnd.nextGaussian());
        numeric[0] = v;
        agg.update(
            key, t0 + rnd.nextLong(0, 9_000), numeric, "u" + rnd.nextInt(1_000_000), null, v);
      }
    }
    return agg;
  }
}

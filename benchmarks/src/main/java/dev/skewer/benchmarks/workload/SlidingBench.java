package dev.skewer.benchmarks.workload;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.window.HoppingSliceAssigner;
import dev.skewer.core.window.SliceAssigner;
import dev.skewer.core.window.TumblingSliceAssigner;
import dev.skewer.core.wire.WireCodec;
import dev.skewer.launcher.cli.JobResources;
import dev.skewer.loadgen.workload.WorkloadSpec;
import dev.skewer.node.aggregate.PartitionAggregator;
import dev.skewer.sketches.SketchSpec;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code skewer bench sliding}: W4 of BENCHMARK.md. Node throughput on W1 events (W1's sketches:
 * count, sum, HLL++ distinct users, t-digest) for tumbling 60 s windows beside hopping 60 s windows
 * every 60 s, 10 s and 1 s (size/hop 1, 6, 60), interleaved in every run so ratios are measured
 * side by side; then the node state per key for each. A run feeds every event to the {@link
 * PartitionAggregator} of its partition, emits every 10,000 events (Partials encoded with the wire
 * codec, as the ingest verticle does) and finalizes at the end, so every slice is emitted once. The
 * order of the configurations rotates from run to run.
 */
@Command(
    name = "sliding",
    mixinStandardHelpOptions = true,
    description = "W4: node throughput, tumbling vs hopping 60 s windows (size/hop 1, 6, 60).")
public final class SlidingBench implements Callable<Integer> {

  @Option(
      names = "--events",
      defaultValue = "3000000",
      description = "Events. Default: ${DEFAULT-VALUE}.")
  long events;

  @Option(
      names = "--runs",
      defaultValue = "3",
      description = "Timed runs (after one warm-up). Default: ${DEFAULT-VALUE}.")
  int runs;

  @Option(
      names = "--seed",
      defaultValue = "1",
      description = "Workload seed. Default: ${DEFAULT-VALUE}.")
  long seed;

  private record Config(String name, SliceAssigner windows) {}

  @Override
  public Integer call() {
    JobSpec job = JobResources.load("w1.yaml");
    SketchSpec spec = job.toSketchSpec();
    int sources = job.topics().eventsPartitions();
    long delayMs = job.watermark().delay().toMillis();
    System.out.printf("Generating W1: %,d events (seed %d)...%n", events, seed);
    W1Events e = W1Events.generate(WorkloadSpec.w1(events, seed), sources, false, null);
    System.out.printf(
        "JVM %s, max heap %d MB, %d cores; %d source partitions, delay %d ms, lateness 0.%n",
        Runtime.version(),
        Runtime.getRuntime().maxMemory() >> 20,
        Runtime.getRuntime().availableProcessors(),
        sources,
        delayMs);
    List<Config> configs =
        List.of(
            new Config("tumbling 60s", new TumblingSliceAssigner(60_000)),
            new Config("hopping 60s/60s (1)", new HoppingSliceAssigner(60_000, 60_000)),
            new Config("hopping 60s/10s (6)", new HoppingSliceAssigner(60_000, 10_000)),
            new Config("hopping 60s/1s (60)", new HoppingSliceAssigner(60_000, 1_000)));
    List<List<Double>> rates = new ArrayList<>();
    for (int c = 0; c < configs.size(); c++) {
      rates.add(new ArrayList<>());
    }
    long[] partials = new long[configs.size()];
    for (int run = 0; run <= runs; run++) {
      for (int i = 0; i < configs.size(); i++) {
        int c = (i + run) % configs.size(); // rotate the order: no config always runs first
        System.gc();
        long[] emitted = {0};
        long t0 = System.nanoTime();
        PartitionAggregator[] nodes =
            feed(e, configs.get(c).windows(), spec, delayMs, sources, emitted);
        for (PartitionAggregator node : nodes) {
          node.finalizeOpenSlices();
          node.emit(p -> emitted[0] += WireCodec.encode(p).length > 0 ? 1 : 0);
        }
        double rate = e.n * 1e9 / (System.nanoTime() - t0);
        partials[c] = emitted[0];
        if (run > 0) {
          rates.get(c).add(rate);
        }
        System.out.printf(
            "%-8s %-22s %,12.0f events/s  %,d partials%n",
            run == 0 ? "warm-up" : "run " + run, configs.get(c).name(), rate, emitted[0]);
      }
    }
    double tumbling = median(rates.get(0));
    System.out.printf(
        "%nNode throughput, median of %d runs (min-max), ratio to tumbling 60s:%n", runs);
    for (int c = 0; c < configs.size(); c++) {
      List<Double> r = rates.get(c);
      System.out.printf(
          "  %-22s %,10.0f events/s (%,.0f-%,.0f)  x%.2f  %,d partials%n",
          configs.get(c).name(),
          median(r),
          Collections.min(r),
          Collections.max(r),
          median(r) / tumbling,
          partials[c]);
    }
    System.out.printf(
        "%nNode state mid-stream (after %,d events, before emitting), per open key-slice:%n",
        e.n / 2);
    for (Config c : configs) {
      int half = e.n / 2;
      PartitionAggregator[] nodes = feedPrefix(e, c.windows(), spec, delayMs, sources, half);
      long bytes = 0;
      long keySlices = 0;
      int slices = 0;
      for (PartitionAggregator node : nodes) {
        bytes += node.snapshot().length;
        keySlices += node.openKeySlices();
        slices += node.openSlices();
      }
      System.out.printf(
          "  %-22s %,12d snapshot bytes  %,9d key-slices  %4d slices  %,6.0f bytes/key-slice%n",
          c.name(), bytes, keySlices, slices, (double) bytes / Math.max(1, keySlices));
    }
    return 0;
  }

  private static PartitionAggregator[] feed(
      W1Events e,
      SliceAssigner windows,
      SketchSpec spec,
      long delayMs,
      int sources,
      long[] emitted) {
    PartitionAggregator[] nodes = new PartitionAggregator[sources];
    for (int p = 0; p < sources; p++) {
      nodes[p] = new PartitionAggregator(p, 1, windows, delayMs, 0, spec);
    }
    double[] numeric = new double[1];
    for (int i = 0; i < e.n; i++) {
      numeric[0] = e.value[i];
      nodes[e.partition[i]].update(
          e.key[i], e.eventTimeMs[i], numeric, e.user[i], null, e.value[i]);
      if (i % 10_000 == 9_999) {
        for (PartitionAggregator node : nodes) {
          node.emit(p -> emitted[0] += WireCodec.encode(p).length > 0 ? 1 : 0);
        }
      }
    }
    return nodes;
  }

  private static PartitionAggregator[] feedPrefix(
      W1Events e, SliceAssigner windows, SketchSpec spec, long delayMs, int sources, int n) {
    PartitionAggregator[] nodes = new PartitionAggregator[sources];
    for (int p = 0; p < sources; p++) {
      nodes[p] = new PartitionAggregator(p, 1, windows, delayMs, 0, spec);
    }
    double[] numeric = new double[1];
    for (int i = 0; i < n; i++) {
      numeric[0] = e.value[i];
      nodes[e.partition[i]].update(
          e.key[i], e.eventTimeMs[i], numeric, e.user[i], null, e.value[i]);
      if (i % 10_000 == 9_999) {
        for (PartitionAggregator node : nodes) {
          node.emit(p -> {});
        }
      }
    }
    return nodes;
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }
}

package dev.skewer.benchmarks.workload;

import dev.skewer.coordinator.merge.FinalResult;
import dev.skewer.coordinator.merge.ResultSink;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.result.ResultFormatter;
import dev.skewer.launcher.cli.JobResources;
import dev.skewer.loadgen.workload.WorkloadSpec;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code skewer bench engine}: W1 in memory through the node and coordinator cores, side by side
 * with the plain single-threaded loop, in one JVM, alternating per run.
 */
@Command(
    name = "engine",
    mixinStandardHelpOptions = true,
    description =
        "W1 engine-only: in-memory events through the node and coordinator cores vs a plain loop.")
public final class EngineBench implements Callable<Integer> {

  @Option(
      names = "--events",
      defaultValue = "1000000",
      description = "Events. Default: ${DEFAULT-VALUE}.")
  long events;

  @Option(
      names = "--runs",
      defaultValue = "3",
      description = "Timed runs (after one warm-up). Default: ${DEFAULT-VALUE}.")
  int runs;

  @Option(
      names = "--json",
      description = "Also time the pipeline with JSON decoding of every event.")
  boolean json;

  @Option(
      names = "--seed",
      defaultValue = "1",
      description = "Workload seed. Default: ${DEFAULT-VALUE}.")
  long seed;

  @Override
  public Integer call() throws Exception {
    JobSpec job = JobResources.load("w1.yaml");
    int sources = job.topics().eventsPartitions();
    int partials = job.topics().partialsPartitions();
    System.out.printf("Generating W1: %,d events (seed %d)...%n", events, seed);
    W1Events e =
        W1Events.generate(
            WorkloadSpec.w1(events, seed), sources, json, i -> System.out.printf("  %,d%n", i));
    long expectedWindows = e.reference.windows().size();
    System.out.printf(
        "Reference: %,d events in %,d (key, window) results. JVM %s, max heap %d MB, %d cores.%n",
        e.reference.totalCount(),
        expectedWindows,
        Runtime.version(),
        Runtime.getRuntime().maxMemory() >> 20,
        Runtime.getRuntime().availableProcessors());
    ResultFormatter formatter = new ResultFormatter(job);
    List<Double> plain = new ArrayList<>();
    List<Double> engine = new ArrayList<>();
    List<Double> engineJson = new ArrayList<>();
    boolean ok = true;
    for (int run = 0; run <= runs; run++) {
      String label = run == 0 ? "warm-up" : "run " + run;
      long t0 = System.nanoTime();
      long[] p = PlainLoop.run(e, job.toSketchSpec(), formatter, 10_000, 2_000);
      double plainRate = e.n * 1e9 / (System.nanoTime() - t0);
      boolean plainOk = p[0] == expectedWindows && p[1] == e.n;

      Phase eng = timeEngine(job, sources, partials, formatter, e, expectedWindows);
      String jsonPart = "";
      boolean jsonOk = true;
      if (json) {
        Phase js = timeEngineJson(job, sources, partials, formatter, e, expectedWindows);
        jsonOk = js.ok();
        jsonPart =
            String.format("   engine+JSON %,.0f ev/s%s", js.rate(), jsonOk ? "" : " MISMATCH");
        if (run > 0) {
          engineJson.add(js.rate());
        }
      }
      System.out.printf(
          "%-8s plain loop %,.0f ev/s%s   engine %,.0f ev/s (%,d partials, %,d results, %,d events)%s   engine/plain %.2f%s%n",
          label,
          plainRate,
          plainOk ? "" : " MISMATCH",
          eng.rate(),
          eng.partialsRouted(),
          eng.results(),
          eng.events(),
          eng.ok() ? "" : " MISMATCH",
          eng.rate() / plainRate,
          jsonPart);
      ok &= plainOk && eng.ok() && jsonOk;
      if (run > 0) {
        plain.add(plainRate);
        engine.add(eng.rate());
      }
    }
    System.out.printf(
        "W1 engine-only, %,d events, median of %d: plain loop %,.0f ev/s [%,.0f-%,.0f], engine %,.0f ev/s [%,.0f-%,.0f], engine/plain %.2f%n",
        events,
        runs,
        median(plain),
        Collections.min(plain),
        Collections.max(plain),
        median(engine),
        Collections.min(engine),
        Collections.max(engine),
        median(engine) / median(plain));
    if (json) {
      System.out.printf(
          "engine with JSON decoding: median %,.0f ev/s [%,.0f-%,.0f]%n",
          median(engineJson), Collections.min(engineJson), Collections.max(engineJson));
    }
    System.out.println(
        ok
            ? "check: every run counted all events into the reference's (key, window) results"
            : "check: MISMATCH");
    return ok ? 0 : 1;
  }

  /** One timed pass: its rate, whether it matched the reference, and what it counted. */
  record Phase(double rate, boolean ok, long partialsRouted, long results, long events) {}

  /**
   * Times one pass of the engine over the decoded events. Each pass runs in its own method so that
   * nothing of it (the pipeline's state, the sink) stays reachable while the next pass runs: a
   * finished pipeline kept alive doubles the live heap the collector copies.
   */
  private static Phase timeEngine(
      JobSpec job,
      int sources,
      int partials,
      ResultFormatter formatter,
      W1Events e,
      long expectedWindows) {
    long t0 = System.nanoTime();
    ResultBytesSink sink = new ResultBytesSink(formatter);
    EnginePipeline pipeline = new EnginePipeline(job, sources, partials, sink);
    double[] numeric = new double[1];
    for (int i = 0; i < e.n; i++) {
      numeric[0] = e.value[i];
      pipeline.update(
          e.partition[i], e.key[i], e.eventTimeMs[i], numeric, e.user[i], null, e.value[i]);
      if (i % 20_000 == 19_999) {
        pipeline.round();
      }
    }
    pipeline.finish();
    double rate = e.n * 1e9 / (System.nanoTime() - t0);
    boolean ok = sink.results == expectedWindows && sink.events == e.n && pipeline.late() == 0;
    return new Phase(rate, ok, pipeline.partialsRouted(), sink.results, sink.events);
  }

  /** Times one pass of the engine decoding every event from its JSON bytes. */
  private static Phase timeEngineJson(
      JobSpec job,
      int sources,
      int partials,
      ResultFormatter formatter,
      W1Events e,
      long expectedWindows) {
    long t0 = System.nanoTime();
    ResultBytesSink sink = new ResultBytesSink(formatter);
    EnginePipeline pipeline = new EnginePipeline(job, sources, partials, sink);
    for (int i = 0; i < e.n; i++) {
      pipeline.updateJson(e.partition[i], e.json[i]);
      if (i % 20_000 == 19_999) {
        pipeline.round();
      }
    }
    pipeline.finish();
    double rate = e.n * 1e9 / (System.nanoTime() - t0);
    boolean ok = sink.results == expectedWindows && sink.events == e.n && pipeline.dlq() == 0;
    return new Phase(rate, ok, pipeline.partialsRouted(), sink.results, sink.events);
  }

  static double median(List<Double> xs) {
    List<Double> s = new ArrayList<>(xs);
    Collections.sort(s);
    int n = s.size();
    return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
  }

  /** Formats every result as the coordinator would (estimates included) and counts. */
  static final class ResultBytesSink implements ResultSink {
    private final ResultFormatter formatter;
    long results;
    long events;
    long bytes;

    ResultBytesSink(ResultFormatter formatter) {
      this.formatter = formatter;
    }

    @Override
    public void accept(FinalResult r) {
      results++;
      events += r.aggregate().count();
      bytes +=
          formatter.format(
                  r.key(), r.windowStartMs(), r.windowEndMs(), r.aggregate(), r.revision(), null)
              .length;
    }
  }
}

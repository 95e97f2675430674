package dev.skewer.devtools;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.TumblingWindow;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.launcher.cli.DurationConverter;
import dev.skewer.launcher.cli.JobResources;
import dev.skewer.launcher.cli.Processes;
import dev.skewer.launcher.local.LocalCluster;
import dev.skewer.launcher.verify.ResultCheck;
import dev.skewer.loadgen.produce.LoadProducer;
import dev.skewer.loadgen.produce.LoadSummary;
import dev.skewer.loadgen.reference.ExactReference;
import dev.skewer.loadgen.reference.ExactWindow;
import dev.skewer.loadgen.workload.Workload;
import dev.skewer.loadgen.workload.WorkloadSpec;
import dev.skewer.reconcile.ExitCode;
import dev.skewer.reconcile.ReconcileOptions;
import dev.skewer.reconcile.ReconcileReport;
import dev.skewer.reconcile.Reconciler;
import dev.skewer.testkit.kafka.EmbeddedKafka;
import dev.skewer.testkit.kafka.TopicReader;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code skewer demo}: an embedded Kafka broker, nodes, a coordinator and the load generator in one
 * JVM, a live top-K table, and at the end a check of every result against the exact counts the
 * generator computed.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Start an embedded Kafka broker, nodes, a coordinator and the load generator;",
      "show progress and the live top-K; check every result against exact counts at the end."
    })
public final class DemoCommand implements Callable<Integer> {

  private static final DateTimeFormatter HMS =
      DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC);

  @Option(
      names = "--duration",
      defaultValue = "60s",
      description = "How long to send events (e.g. 30s, 5m). Default: ${DEFAULT-VALUE}.",
      converter = DurationConverter.class)
  Duration duration;

  @Option(
      names = "--rate",
      defaultValue = "5000",
      description = "Events per second. Default: ${DEFAULT-VALUE}.")
  double rate;

  @Option(
      names = "--nodes",
      defaultValue = "2",
      description = "Nodes to start. Default: ${DEFAULT-VALUE}.")
  int nodes;

  @Option(
      names = "--coordinators",
      defaultValue = "1",
      description = "Coordinators to start. Default: ${DEFAULT-VALUE}.")
  int coordinators;

  @Option(
      names = "--http-port",
      defaultValue = "8080",
      description =
          "The coordinator's HTTP API port (0 = any free port). Default: ${DEFAULT-VALUE}.")
  int httpPort;

  @Option(
      names = "--hot-key-share",
      defaultValue = "0.2",
      description = "Share of events carried by the hot key ad0. Default: ${DEFAULT-VALUE}.")
  double hotKeyShare;

  @Option(
      names = "--seed",
      defaultValue = "1",
      description = "Load generator seed. Default: ${DEFAULT-VALUE}.")
  long seed;

  @Override
  public Integer call() throws Exception {
    if (nodes < 1 || coordinators < 1) {
      throw new IllegalArgumentException("--nodes and --coordinators must be >= 1");
    }
    if (!(rate > 0)) {
      throw new IllegalArgumentException("--rate must be > 0, was " + rate);
    }
    PrintStream out = System.out;
    if (System.getenv("SKEWER_LOG_LEVEL") == null) {
      // the live table owns the screen: only warnings and errors from the processes
      ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger("dev.skewer"))
          .setLevel(ch.qos.logback.classic.Level.WARN);
      // the demo sends late and malformed events on purpose: their routing WARN lines are
      // counted in the table and the summary, not printed
      ((ch.qos.logback.classic.Logger)
              LoggerFactory.getLogger("dev.skewer.node.ingest.SideOutputs"))
          .setLevel(ch.qos.logback.classic.Level.ERROR);
      // members and clients saying goodbye to each other at shutdown is not news for a demo
      for (String noisy : new String[] {"org.apache.kafka", "kafka", "com.hazelcast"}) {
        ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(noisy))
            .setLevel(ch.qos.logback.classic.Level.ERROR);
      }
    }
    JobSpec job = JobResources.load("demo.yaml");
    AtomicBoolean interrupted = new AtomicBoolean();
    CountDownLatch finished = new CountDownLatch(1);
    AtomicReference<LoadProducer> producerRef = new AtomicReference<>();
    Thread main = Thread.currentThread();
    Thread hook =
        new Thread(
            () -> {
              interrupted.set(true);
              LoadProducer p = producerRef.get();
              if (p != null) {
                p.stop();
              }
              main.interrupt();
              try {
                finished.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "skewer-demo-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);

    out.println("Skewer demo: starting an embedded Kafka broker (KRaft)...");
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      KafkaSettings settings = KafkaSettings.of(kafka.bootstrapServers());
      Processes.provision(settings, job);
      out.printf(
          "Broker at %s; starting %d node(s) and %d coordinator(s), each with a Hazelcast member...%n",
          kafka.bootstrapServers(), nodes, coordinators);
      MeterRegistry registry = new SimpleMeterRegistry();
      try (LocalCluster cluster =
          LocalCluster.start(
              job, settings, nodes, coordinators, true, httpPort, registry, Clock.systemUTC())) {
        long settleDeadline = System.currentTimeMillis() + 60_000;
        while (!cluster.assignmentsSettled(
                job.topics().eventsPartitions(), job.topics().partialsPartitions())
            && System.currentTimeMillis() < settleDeadline) {
          Thread.sleep(100); // let the consumer groups settle so no partition is replayed
        }
        out.printf(
            "Cluster up. Dashboard: http://127.0.0.1:%d/  API: http://127.0.0.1:%d/api/v1/topk?k=10"
                + "  (Ctrl-C stops the demo)%n",
            cluster.httpPort(), cluster.httpPort());
        ExactReference reference =
            ExactReference.of(
                ((TumblingWindow) job.window()).size(),
                job.watermark().delay(),
                job.allowedLateness(),
                job.topics().eventsPartitions(),
                null);
        Duration lateBy =
            job.allowedLateness()
                .plus(((TumblingWindow) job.window()).size())
                .plus(job.watermark().delay())
                .plusSeconds(5);
        WorkloadSpec spec =
            WorkloadSpec.demo(hotKeyShare, Duration.ofSeconds(1), lateBy, seed)
                .withEvents(Math.max(1, (long) (rate * duration.toMillis() / 1000.0)));
        LoadSummary summary =
            runLoad(out, kafka, job, cluster, registry, reference, spec, producerRef, interrupted);
        out.println();
        out.printf(
            "Load done: %,d events sent (%,.0f/s): %,d normal, %,d generated late, %,d malformed, %,d future-dated.%n",
            summary.sent(),
            summary.eventsPerSecond(),
            summary.normal(),
            summary.lateKind(),
            summary.malformed(),
            summary.future());
        Duration settle =
            job.watermark().finalizeAfterIdle() == null
                ? Duration.ofSeconds(10)
                : job.watermark().finalizeAfterIdle().plusSeconds(5);
        out.printf("Waiting up to %ds for the last windows to close...%n", settle.toSeconds() + 20);
        ResultCheck.Report report =
            awaitResults(kafka, job, reference, settle.plusSeconds(20), interrupted);
        out.println();
        out.println("Summary");
        out.printf("  events sent          %,d%n", summary.sent());
        out.printf(
            "  results emitted      %,d (%,d revisions)%n",
            report.resultRecords(), report.revisions());
        out.printf(
            "  late (side output)   %,d (expected %,d)%n",
            (long) count(registry, "skewer.events.late"), reference.late().size());
        out.printf(
            "  DLQ                  %,d (expected %,d)%n",
            (long) count(registry, "skewer.events.dlq"), reference.dlq().size());
        out.printf("  check                %s%n", report.summary());
        out.println(
            report.ok()
                ? "RESULT: every result matched the exact counts."
                : "RESULT: MISMATCH (see above)");
        boolean reconciled = interrupted.get() || reconcile(out, settings, job, reference);
        return (report.ok() && reconciled) || interrupted.get() ? 0 : 1;
      }
    } finally {
      finished.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the JVM is already stopping: the hook is running
      }
    }
  }

  /**
   * Runs what a nightly job would: {@code skewer reconcile} over the windows the load covered,
   * recomputing them from the input topic and checking the results, late and DLQ topics.
   */
  private static boolean reconcile(
      PrintStream out, KafkaSettings settings, JobSpec job, ExactReference reference) {
    long from = Long.MAX_VALUE;
    long to = Long.MIN_VALUE;
    for (ExactWindow w : reference.windows().values()) {
      from = Math.min(from, w.windowStartMs());
      to = Math.max(to, w.windowEndMs());
    }
    if (from >= to) {
      return true;
    }
    out.println();
    out.printf(
        "Reconciling [%s, %s) from the input topic (what `skewer reconcile --job ... --from %d"
            + " --to %d` does)...%n",
        Instant.ofEpochMilli(from), Instant.ofEpochMilli(to), from, to);
    ReconcileReport r =
        Reconciler.run(
            ReconcileOptions.of(
                job, settings, Instant.ofEpochMilli(from), Instant.ofEpochMilli(to)),
            p -> {
              if (p.elapsed().toSeconds() >= 2) {
                out.println("  " + p.line());
              }
            });
    out.print(r.summaryTable());
    boolean exact =
        r.exitCode() == ExitCode.MATCH || r.exitCode() == ExitCode.SKETCHES_OUTSIDE_BOUNDS;
    out.println(
        exact
            ? "RECONCILE: every result equals the batch recomputation; every event is in exactly"
                + " one of a result, the late topic, the DLQ."
            : "RECONCILE: DIFFERENCES (see above)");
    return exact;
  }

  private LoadSummary runLoad(
      PrintStream out,
      EmbeddedKafka kafka,
      JobSpec job,
      LocalCluster cluster,
      MeterRegistry registry,
      ExactReference reference,
      WorkloadSpec spec,
      AtomicReference<LoadProducer> producerRef,
      AtomicBoolean interrupted)
      throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    AtomicReference<LoadSummary> result = new AtomicReference<>();
    AtomicReference<Exception> failure = new AtomicReference<>();
    long[] sent = new long[1];
    try (LoadProducer producer =
        LoadProducer.builder(kafka.bootstrapServers(), job.topics().events())
            .job(job)
            .rate(rate)
            .reference(reference)
            .progress(p -> sent[0] = p.sent())
            .build()) {
      producerRef.set(producer);
      Thread loader =
          new Thread(
              () -> {
                try {
                  result.set(producer.run(Workload.live(spec, Clock.systemUTC())));
                } catch (Exception e) {
                  failure.set(e);
                }
              },
              "skewer-demo-load");
      loader.start();
      long startMs = System.currentTimeMillis();
      while (loader.isAlive()) {
        try {
          loader.join(2_000);
        } catch (InterruptedException e) {
          producer.stop();
          loader.join();
          break;
        }
        if (interrupted.get()) {
          producer.stop();
          continue;
        }
        render(
            out, http, cluster.httpPort(), registry, sent[0], System.currentTimeMillis() - startMs);
      }
      producerRef.set(null);
    }
    if (failure.get() != null) {
      throw failure.get();
    }
    return result.get();
  }

  private void render(
      PrintStream out,
      HttpClient http,
      int port,
      MeterRegistry registry,
      long sent,
      long elapsedMs) {
    StringBuilder sb = new StringBuilder();
    if (System.console() != null) {
      sb.append("\033[H\033[2J");
    }
    sb.append(
        String.format(
            "Skewer demo  %3ds/%ds   sent %,d (%,.0f/s)   results %,d   late %,d   DLQ %,d%n"
                + "Dashboard: http://127.0.0.1:"
                + port
                + "/%n",
            elapsedMs / 1000,
            duration.toSeconds(),
            sent,
            elapsedMs > 0 ? sent * 1000.0 / elapsedMs : 0.0,
            (long) count(registry, "skewer.results.out"),
            (long) count(registry, "skewer.events.late"),
            (long) count(registry, "skewer.events.dlq")));
    try {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/topk?k=10"))
                  .timeout(Duration.ofSeconds(2))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() == 200) {
        JsonObject body = new JsonObject(r.body());
        sb.append(
            String.format(
                "Top 10 keys of the latest closed window %s-%s UTC (%d/%d partitions reporting)%n",
                HMS.format(Instant.ofEpochMilli(body.getLong("window_start_ms"))),
                HMS.format(Instant.ofEpochMilli(body.getLong("window_end_ms"))),
                body.getInteger("partitions_reporting"),
                body.getInteger("partitions")));
        sb.append(String.format("  %3s  %-12s %10s%n", "#", "key", "count"));
        JsonArray keys = body.getJsonArray("keys");
        for (int i = 0; i < keys.size(); i++) {
          JsonObject e = keys.getJsonObject(i);
          sb.append(
              String.format("  %3d  %-12s %,10d%n", i + 1, e.getString("key"), e.getLong("count")));
        }
      } else {
        sb.append(
            "Top-K: no window has closed yet (the first closes one window + delay after the start)\n");
      }
      HttpResponse<String> hot =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/hotkeys"))
                  .timeout(Duration.ofSeconds(2))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (hot.statusCode() == 200) {
        JsonArray table = new JsonObject(hot.body()).getJsonArray("hot_keys");
        StringBuilder keys = new StringBuilder();
        for (int i = 0; i < table.size(); i++) {
          JsonObject h = table.getJsonObject(i);
          keys.append(i == 0 ? "" : ", ")
              .append(h.getString("key"))
              .append(" x")
              .append(h.getInteger("fanout"));
        }
        sb.append("Hot keys salted by the load generator: ")
            .append(table.isEmpty() ? "none yet" : keys)
            .append('\n');
      }
    } catch (IOException e) {
      sb.append("Top-K: API not reachable: ").append(e.getMessage()).append('\n');
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    out.print(sb);
    out.flush();
  }

  private static ResultCheck.Report awaitResults(
      EmbeddedKafka kafka,
      JobSpec job,
      ExactReference reference,
      Duration timeout,
      AtomicBoolean interrupted) {
    long deadline = System.currentTimeMillis() + timeout.toMillis();
    ResultCheck.Report report;
    do {
      report =
          ResultCheck.check(
              reference,
              TopicReader.readAll(
                  kafka.bootstrapServers(), job.topics().results(), Duration.ofSeconds(20)),
              job.output().keyField(),
              job.input().numericFields().get(0).name(),
              false);
      if (report.ok() || interrupted.get()) {
        return report;
      }
      try {
        Thread.sleep(1_000);
      } catch (InterruptedException e) {
        return report;
      }
    } while (System.currentTimeMillis() < deadline);
    return report;
  }

  private static double count(MeterRegistry registry, String name) {
    return registry.find(name).counters().stream().mapToDouble(c -> c.count()).sum();
  }
}

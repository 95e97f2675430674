package dev.skewer.benchmarks.workload;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.core.kafka.TopicProvisioner;
import dev.skewer.launcher.cli.JobResources;
import dev.skewer.launcher.local.LocalCluster;
import dev.skewer.loadgen.produce.LoadProducer;
import dev.skewer.loadgen.produce.LoadSummary;
import dev.skewer.loadgen.workload.Workload;
import dev.skewer.loadgen.workload.WorkloadSpec;
import dev.skewer.testkit.kafka.EmbeddedKafka;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code skewer bench query}: W1's event mix sent live (event time = now) at a fixed rate through a
 * local cluster while the HTTP API answers {@code /api/v1/topk?k=10} at a fixed request rate.
 * Measures, per window, the time from the moment it can close (wall clock = window end + watermark
 * delay) to its first and its last result on the results topic and to the API answering it as the
 * latest closed window; and the latency of every API request from its scheduled send time (so a
 * stall is not hidden by sending less).
 */
@Command(
    name = "query",
    mixinStandardHelpOptions = true,
    description =
        "Window close to result latency (topic and API), and API top-K latency under load.")
public final class QueryLatencyBench implements Callable<Integer> {

  @Option(
      names = "--rate",
      defaultValue = "20000",
      description = "Events per second. Default: ${DEFAULT-VALUE}.")
  double rate;

  @Option(
      names = "--duration",
      defaultValue = "60",
      description = "Seconds of load. Default: ${DEFAULT-VALUE}.")
  int seconds;

  @Option(
      names = "--api-rate",
      defaultValue = "1000",
      description = "API top-K requests per second. Default: ${DEFAULT-VALUE}.")
  int apiRate;

  @Option(
      names = "--warmup",
      defaultValue = "10",
      description =
          "Seconds of API requests (JIT, connections) not counted, before the load starts."
              + " Default: ${DEFAULT-VALUE}.")
  int warmupSeconds;

  @Option(names = "--nodes", defaultValue = "2", description = "Nodes. Default: ${DEFAULT-VALUE}.")
  int nodes;

  @Option(
      names = "--seed",
      defaultValue = "1",
      description = "Workload seed. Default: ${DEFAULT-VALUE}.")
  long seed;

  @Override
  public Integer call() throws Exception {
    JobSpec job = JobResources.load("w1.yaml");
    long sizeMs = 10_000;
    long delayMs = job.watermark().delay().toMillis();
    System.out.println("Starting the embedded broker (KRaft)...");
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      KafkaSettings settings = KafkaSettings.of(kafka.bootstrapServers());
      try (Admin admin = Admin.create(settings.adminConfig())) {
        TopicProvisioner.ensureTopics(admin, job.topics(), Duration.ofSeconds(60));
      }
      try (LocalCluster cluster =
          LocalCluster.start(
              job, settings, nodes, 1, true, 0, new SimpleMeterRegistry(), Clock.systemUTC())) {
        long settle = System.currentTimeMillis() + 60_000;
        while (!cluster.assignmentsSettled(
                job.topics().eventsPartitions(), job.topics().partialsPartitions())
            && System.currentTimeMillis() < settle) {
          Thread.sleep(100); // waiting for the consumer groups, not synchronising data
        }
        String api = "http://127.0.0.1:" + cluster.httpPort();
        AtomicBoolean stop = new AtomicBoolean();
        Map<Long, long[]> onTopic = new ConcurrentHashMap<>(); // start -> {first, last, count}
        Thread topicWatcher =
            new Thread(() -> watchResults(kafka, job, onTopic, stop), "bench-results-watcher");
        topicWatcher.start();
        Map<Long, Long> inApi = new ConcurrentHashMap<>(); // start -> first time seen latest
        ConcurrentLinkedQueue<long[]> requests = new ConcurrentLinkedQueue<>();
        AtomicInteger failures = new AtomicInteger();
        Thread apiLoad =
            new Thread(
                () -> loadApi(api + "/api/v1/topk?k=10", inApi, requests, failures, stop),
                "bench-api-load");
        apiLoad.start();
        System.out.printf("Warming the API up for %d s...%n", warmupSeconds);
        Thread.sleep(warmupSeconds * 1000L);
        requests.clear();
        failures.set(0);
        long startMs = System.currentTimeMillis();
        WorkloadSpec spec =
            WorkloadSpec.w1(Long.MAX_VALUE, seed).withEvents((long) (rate * seconds));
        System.out.printf(
            "Sending W1 live at %,.0f events/s for %d s; the API gets %d top-K requests/s...%n",
            rate, seconds, apiRate);
        LoadSummary sent;
        try (LoadProducer producer =
            LoadProducer.builder(kafka.bootstrapServers(), job.topics().events())
                .job(job)
                .rate(rate)
                .build()) {
          sent = producer.run(Workload.live(spec, Clock.systemUTC()));
        }
        long loadEndMs = System.currentTimeMillis();
        Thread.sleep(delayMs + sizeMs + 5_000); // let the last full window close
        stop.set(true);
        apiLoad.join();
        topicWatcher.join();

        // windows that opened and closed while the load ran at full rate
        List<Long> firstLatency = new ArrayList<>();
        List<Long> lastLatency = new ArrayList<>();
        List<Long> apiLatency = new ArrayList<>();
        for (Map.Entry<Long, long[]> e : onTopic.entrySet()) {
          long start = e.getKey();
          long canClose = start + sizeMs + delayMs;
          if (start < startMs || start + sizeMs > loadEndMs) {
            continue;
          }
          firstLatency.add(e.getValue()[0] - canClose);
          lastLatency.add(e.getValue()[1] - canClose);
          Long seen = inApi.get(start);
          if (seen != null) {
            apiLatency.add(seen - canClose);
          }
        }
        List<Long> requestLatency = new ArrayList<>();
        long firstNs = Long.MAX_VALUE;
        for (long[] r : requests) {
          requestLatency.add(r[0]);
          firstNs = Math.min(firstNs, r[1]);
        }
        // when the slow requests were sent: seconds since the first request, worst latency in each
        TreeMap<Long, Long> worstPerSecond = new TreeMap<>();
        for (long[] r : requests) {
          worstPerSecond.merge((r[1] - firstNs) / 1_000_000_000L, r[0], Math::max);
        }
        double seconds = (System.currentTimeMillis() - startMs) / 1000.0;
        System.out.printf(
            "%nSent %,d events (%,.0f/s). %d full windows measured.%n",
            sent.sent(), sent.eventsPerSecond(), firstLatency.size());
        System.out.println(
            "Window close -> result (ms; close = window end + watermark delay, wall clock):");
        print("  first result on the topic", firstLatency);
        print("  last result on the topic ", lastLatency);
        print("  latest window in the API  ", apiLatency);
        System.out.printf(
            "API /api/v1/topk?k=10 at %d requests/s: %,d answered (%.0f/s), %d failed%n",
            apiRate, requestLatency.size(), requestLatency.size() / seconds, failures.get());
        printMicros("  request latency", requestLatency);
        StringBuilder slow = new StringBuilder();
        worstPerSecond.forEach(
            (second, worst) -> {
              if (worst > 100_000) {
                slow.append(String.format(" %ds:%dms", second, worst / 1000));
              }
            });
        System.out.println(
            "  seconds with a request slower than 100 ms (second since start: worst):"
                + (slow.length() == 0 ? " none" : slow));
        return 0;
      }
    }
  }

  private void loadApi(
      String url,
      Map<Long, Long> inApi,
      ConcurrentLinkedQueue<long[]> requests,
      AtomicInteger failures,
      AtomicBoolean stop) {
    // a Vert.x client of its own (Netty, kept-alive pooled connections): cheaper per request than
    // the JDK's, so the figure is the server's rather than the load generator's
    Vertx client = Vertx.vertx();
    HttpClient http =
        client
            .httpClientBuilder()
            .with(new HttpClientOptions().setKeepAlive(true).setConnectTimeout(5_000))
            .with(new PoolOptions().setHttp1MaxSize(32))
            .build();
    URI uri = URI.create(url);
    RequestOptions options =
        new RequestOptions()
            .setHost(uri.getHost())
            .setPort(uri.getPort())
            .setURI(uri.getRawPath() + "?" + uri.getRawQuery())
            .setTimeout(10_000);
    long intervalNs = 1_000_000_000L / apiRate;
    long next = System.nanoTime();
    AtomicLong inFlight = new AtomicLong();
    try {
      while (!stop.get()) {
        long now = System.nanoTime();
        if (now < next) {
          LockSupport.parkNanos(next - now);
          continue;
        }
        long scheduled = next;
        next += intervalNs;
        if (inFlight.get() > 5_000) {
          failures.incrementAndGet(); // the server fell this far behind: counted, not queued
          continue;
        }
        inFlight.incrementAndGet();
        http.request(options)
            .compose(
                req ->
                    req.send()
                        .compose(resp -> resp.body().map(b -> Map.entry(resp.statusCode(), b))))
            .onComplete(
                ar -> {
                  inFlight.decrementAndGet();
                  long doneNs = System.nanoTime();
                  if (ar.failed() || ar.result().getKey() >= 500) {
                    if (failures.incrementAndGet() <= 3) {
                      System.out.println(
                          "request failed: "
                              + (ar.failed() ? ar.cause() : "status " + ar.result().getKey()));
                    }
                    return;
                  }
                  requests.add(new long[] {(doneNs - scheduled) / 1_000, scheduled});
                  if (ar.result().getKey() == 200) {
                    long start = new JsonObject(ar.result().getValue()).getLong("window_start_ms");
                    inApi.putIfAbsent(start, System.currentTimeMillis());
                  }
                });
      }
    } finally {
      client.close();
    }
  }

  private static void watchResults(
      EmbeddedKafka kafka, JobSpec job, Map<Long, long[]> onTopic, AtomicBoolean stop) {
    Map<String, Object> config =
        new HashMap<>(KafkaSettings.of(kafka.bootstrapServers()).consumerConfig(null));
    config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "10");
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      for (PartitionInfo p : consumer.partitionsFor(job.topics().results())) {
        parts.add(new TopicPartition(p.topic(), p.partition()));
      }
      consumer.assign(parts);
      consumer.seekToEnd(parts);
      while (!stop.get()) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(20))) {
          long now = System.currentTimeMillis();
          String key = new String(r.key(), StandardCharsets.UTF_8);
          long start = Long.parseLong(key.substring(key.lastIndexOf('@') + 1));
          onTopic.compute(
              start,
              (s, v) -> {
                if (v == null) {
                  return new long[] {now, now, 1};
                }
                v[1] = now;
                v[2]++;
                return v;
              });
        }
      }
    }
  }

  private static void print(String label, List<Long> values) {
    if (values.isEmpty()) {
      System.out.println(label + ": no window measured");
      return;
    }
    values.sort(Long::compare);
    System.out.printf(
        "%s: p50 %,d  p99 %,d  max %,d  (n=%d)%n",
        label, pct(values, 0.5), pct(values, 0.99), values.get(values.size() - 1), values.size());
  }

  private static void printMicros(String label, List<Long> micros) {
    if (micros.isEmpty()) {
      System.out.println(label + ": none");
      return;
    }
    micros.sort(Long::compare);
    System.out.printf(
        "%s (ms): p50 %.2f  p99 %.2f  p99.9 %.2f  max %.2f%n",
        label,
        pct(micros, 0.5) / 1000.0,
        pct(micros, 0.99) / 1000.0,
        pct(micros, 0.999) / 1000.0,
        micros.get(micros.size() - 1) / 1000.0);
  }

  private static long pct(List<Long> sorted, double q) {
    return sorted.get(Math.max(0, (int) Math.ceil(q * sorted.size()) - 1));
  }
}

package dev.skewer.launcher.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.coordinator.CoordinatorRuntime;
import dev.skewer.coordinator.CoordinatorSettings;
import dev.skewer.coordinator.hotkey.HotKeySettings;
import dev.skewer.coordinator.query.QuerySettings;
import dev.skewer.coordinator.stream.CoordinatorTopicFacts;
import dev.skewer.core.checkpoint.HazelcastCheckpointStore;
import dev.skewer.core.cluster.ClusterSettings;
import dev.skewer.core.cluster.HazelcastMembers;
import dev.skewer.core.job.JobNames;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.core.net.FreePorts;
import dev.skewer.loadgen.produce.LoadProducer;
import dev.skewer.loadgen.workload.Workload;
import dev.skewer.loadgen.workload.WorkloadSpec;
import dev.skewer.node.NodeRuntime;
import dev.skewer.node.NodeSettings;
import dev.skewer.node.ingest.NodeTopicFacts;
import dev.skewer.testkit.checkpoint.GatedCheckpointStore;
import dev.skewer.testkit.kafka.BrokerFixture;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;

/**
 * A node and a coordinator on a real broker with real Hazelcast members, over real HTTP: {@code
 * /health/ready} is 503 ("starting") while the node's member has not joined yet (it starts as
 * {@code skewer node} does: endpoints, checkpoint topic and topic facts before the member), 503
 * while their partitions are assigned but not restored and 200 once they are; {@code /metrics} has
 * the JVM's, the Kafka clients' and Skewer's meters; the committed offsets of both consumer groups
 * lag during a run and catch up after it.
 */
class EndpointsIT {

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private HttpResponse<String> get(int port, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(5))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void shouldReportReadinessMetricsAndCommittedOffsets() throws Exception {
    JobSpec job = ShortWindowJob.named("endpoints").eventsPartitions(2).noQuantile().spec();
    JobNames names = JobNames.of(job);
    try (BrokerFixture broker = BrokerFixture.start()) {
      Admin admin = broker.admin();
      KafkaSettings settings = broker.settings();
      broker.provision(job);
      NodeSettings nodeSettings =
          new NodeSettings(
                  "node-1",
                  job,
                  settings,
                  null,
                  NodeSettings.DEFAULT_MAX_PENDING_RECORDS,
                  NodeSettings.DEFAULT_TICK_INTERVAL,
                  Duration.ofSeconds(1),
                  null,
                  NodeSettings.NO_HTTP)
              .withHttp("127.0.0.1", 0);
      PrometheusMeterRegistry nodeRegistry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      // as `skewer node` starts: the endpoints and the Kafka side first, the member after them
      NodeRuntime.Startup startup = NodeRuntime.begin(nodeSettings, nodeRegistry);
      assertThat(get(startup.httpPort(), "/health/live").statusCode()).isEqualTo(200);
      HttpResponse<String> starting = get(startup.httpPort(), "/health/ready");
      assertThat(starting.statusCode()).isEqualTo(503);
      assertThat(starting.body()).contains("\"DOWN\"").contains("starting: joining the cluster");
      HazelcastCheckpointStore.Mirror nodeMirror =
          HazelcastCheckpointStore.mirror(
              settings,
              names.checkpointsTopic(),
              true,
              HazelcastCheckpointStore.DEFAULT_CHUNK_BYTES,
              "node-1");
      NodeTopicFacts facts = NodeTopicFacts.read(nodeSettings);
      assertThat(facts.partialsPartitions()).isEqualTo(job.topics().partialsPartitions());
      assertThat(facts.dlqRecordLimit()).isPositive();
      assertThat(facts.lateRecordLimit()).isPositive();
      int p1 = FreePorts.next();
      int p2 = FreePorts.next();
      List<String> members = List.of("127.0.0.1:" + p1, "127.0.0.1:" + p2);
      HazelcastInstance hzNode =
          HazelcastMembers.start(
              ClusterSettings.loopback(names.hazelcastClusterName(), p1, members),
              "node-1",
              "node",
              job.name());
      HazelcastInstance hzCoordinator =
          HazelcastMembers.start(
              ClusterSettings.loopback(names.hazelcastClusterName(), p2, members),
              "coordinator-1",
              "coordinator",
              job.name());
      GatedCheckpointStore nodeStore =
          new GatedCheckpointStore(HazelcastCheckpointStore.create(hzNode, names, nodeMirror));
      GatedCheckpointStore coordinatorStore =
          new GatedCheckpointStore(
              HazelcastCheckpointStore.create(
                  hzCoordinator, settings, names, names.checkpointsTopic(), true));
      PrometheusMeterRegistry coordinatorRegistry =
          new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      CoordinatorSettings coordinatorSettings =
          new CoordinatorSettings(
              "coordinator-1",
              job,
              settings,
              null,
              "127.0.0.1",
              0,
              CoordinatorSettings.DEFAULT_MAX_PENDING_RECORDS,
              Duration.ofSeconds(1),
              HotKeySettings.defaults(),
              true);
      // as `skewer coordinator` starts: its topic facts and Vert.x made before it starts
      CoordinatorTopicFacts coordinatorFacts = CoordinatorTopicFacts.read(coordinatorSettings);
      assertThat(coordinatorFacts.sourcePartitions()).isEqualTo(job.topics().eventsPartitions());
      CoordinatorRuntime.Startup coordinatorStartup =
          CoordinatorRuntime.begin(
              coordinatorSettings, QuerySettings.defaults(), coordinatorRegistry);
      try (NodeRuntime node = startup.finish(Clock.systemUTC(), nodeStore, hzNode, facts);
          CoordinatorRuntime coordinator =
              coordinatorStartup.finish(
                  Clock.systemUTC(), coordinatorStore, hzCoordinator, coordinatorFacts)) {
        assertThat(node.httpPort()).isEqualTo(startup.httpPort()); // the endpoints begun with it
        // live at once; not ready while the assigned partitions cannot be restored
        assertThat(get(node.httpPort(), "/health/live").statusCode()).isEqualTo(200);
        assertThat(get(coordinator.httpPort(), "/health/live").statusCode()).isEqualTo(200);
        for (int port : List.of(node.httpPort(), coordinator.httpPort())) {
          await()
              .atMost(Duration.ofSeconds(60))
              .untilAsserted(
                  () -> {
                    HttpResponse<String> r = get(port, "/health/ready");
                    assertThat(r.statusCode()).isEqualTo(503);
                    assertThat(r.body()).contains("\"DOWN\"").contains("not restored yet");
                  });
        }
        // (the gate stays shut: still 503)
        assertThat(get(node.httpPort(), "/health/ready").statusCode()).isEqualTo(503);
        assertThat(node.readiness().ready()).isFalse();

        nodeStore.open();
        coordinatorStore.open();
        for (int port : List.of(node.httpPort(), coordinator.httpPort())) {
          await()
              .atMost(Duration.ofSeconds(60))
              .untilAsserted(
                  () -> {
                    HttpResponse<String> r = get(port, "/health/ready");
                    assertThat(r.statusCode()).isEqualTo(200);
                    assertThat(r.body()).contains("\"UP\"").contains("restored and consuming");
                  });
        }

        // a run: 12,000 live events over ~6 s, lag sampled meanwhile
        WorkloadSpec spec =
            WorkloadSpec.demo(0.2, Duration.ofMillis(200), Duration.ofSeconds(30), 3)
                .withEvents(12_000)
                .withKeys(500);
        AtomicLong maxNodeLag = new AtomicLong();
        AtomicLong maxCoordinatorLag = new AtomicLong();
        try (LoadProducer producer =
            LoadProducer.builder(broker.bootstrapServers(), job.topics().events())
                .job(job)
                .rate(2_000)
                .build()) {
          CompletableFuture<?> load =
              CompletableFuture.runAsync(
                  () -> producer.run(Workload.live(spec, Clock.systemUTC())));
          while (!load.isDone()) {
            maxNodeLag.accumulateAndGet(
                ConsumerLag.of(admin, names.nodesGroup(), job.topics().events()).lag(), Math::max);
            maxCoordinatorLag.accumulateAndGet(
                ConsumerLag.of(admin, names.coordinatorsGroup(), job.topics().partials()).lag(),
                Math::max);
            Thread.sleep(100); // sampling pace, not synchronisation
          }
          load.get();
        }
        assertThat(maxNodeLag.get()).as("events lag seen during the run").isPositive();
        assertThat(maxCoordinatorLag.get()).as("partials lag seen during the run").isPositive();
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () -> ConsumerLag.of(admin, names.nodesGroup(), job.topics().events()).caughtUp());
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () ->
                    ConsumerLag.of(admin, names.coordinatorsGroup(), job.topics().partials())
                        .caughtUp());

        // metrics: the JVM's, the Kafka clients', Hazelcast's and Skewer's, in Prometheus form
        String nodeMetrics = get(node.httpPort(), "/metrics").body();
        assertThat(nodeMetrics)
            .contains("jvm_memory_used_bytes")
            .contains("jvm_gc_")
            .contains("jvm_threads_live_threads")
            .contains("jvm_classes_loaded_classes")
            .contains("process_cpu_usage")
            .contains("kafka_consumer_fetch_manager_records_consumed_total")
            .contains("kafka_producer_record_send_total")
            .contains("skewer_events_in_total{node=\"node-1\"} 12000.0")
            .contains("skewer_watermark_lag_seconds")
            .contains("skewer_checkpoint_duration_seconds")
            .contains("skewer_hazelcast_members{node=\"node-1\"} 2.0")
            .contains("skewer_hazelcast_map_owned_entries");
        String coordinatorMetrics = get(coordinator.httpPort(), "/metrics").body();
        assertThat(coordinatorMetrics)
            .contains("jvm_memory_used_bytes")
            .contains("kafka_consumer_fetch_manager_records_consumed_total")
            .contains("kafka_producer_record_send_total")
            .contains("skewer_partials_in_total")
            .contains("skewer_results_out_total")
            .contains("skewer_coordinator_watermark_lag_seconds")
            .contains("skewer_hazelcast_members{coordinator=\"coordinator-1\"} 2.0");
      } finally {
        nodeStore.close();
        coordinatorStore.close();
        hzCoordinator.getLifecycleService().terminate();
        hzNode.getLifecycleService().terminate();
      }
    }
  }
}

package dev.skewer.launcher.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.coordinator.CoordinatorRuntime;
import dev.skewer.coordinator.CoordinatorSettings;
import dev.skewer.coordinator.hotkey.FanoutPolicy;
import dev.skewer.coordinator.hotkey.HotKeySettings;
import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.checkpoint.HazelcastCheckpointStore;
import dev.skewer.core.cluster.ClusterSettings;
import dev.skewer.core.cluster.HazelcastMembers;
import dev.skewer.core.hotkey.HotKeyReport;
import dev.skewer.core.job.JobNames;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.KafkaSettings;
import dev.skewer.core.net.FreePorts;
import dev.skewer.launcher.verify.ResultRecord;
import dev.skewer.node.NodeRuntime;
import dev.skewer.node.NodeSettings;
import dev.skewer.testkit.kafka.BrokerFixture;
import dev.skewer.testkit.kafka.EmbeddedKafka;
import dev.skewer.testkit.kafka.TopicReader;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * Two jobs, {@code alpha} and {@code beta}, on one broker and in ONE Hazelcast cluster (both set
 * the same cluster name): each has a node and a coordinator; alpha's keys are {@code a-*}, beta's
 * {@code b-*}. Neither sees the other's checkpoints, epochs, top-K, hot keys, hot-key reports,
 * partials or results, because every internal name is derived from the job.
 */
class JobIsolationIT {

  private static final int EVENTS = 40_000; // 20 s per job at 2,000 events/s
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  /** Counts only, 2 events partitions. */
  private static JobSpec job(String name) {
    return ShortWindowJob.named(name).eventsPartitions(2).countsOnly().spec();
  }

  private JsonObject getJson(int port, String path) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(5))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
    return new JsonObject(r.body());
  }

  /** 60% of the events on {@code <prefix>hot}, the rest over 50 keys; 2,000 events/s, live. */
  private static void produce(String bootstrap, String topic, String prefix) {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer())) {
      long start = System.nanoTime();
      for (int i = 0; i < EVENTS; i++) {
        String key = i % 5 < 3 ? prefix + "hot" : prefix + (i % 50);
        String json = "{\"key\":\"" + key + "\",\"ts\":" + System.currentTimeMillis() + "}";
        producer.send(new ProducerRecord<>(topic, key, json.getBytes(StandardCharsets.UTF_8)));
        long due = start + i * 500_000L; // 2,000 per second
        long ahead = due - System.nanoTime();
        if (ahead > 0) {
          LockSupport.parkNanos(ahead); // pacing, not synchronisation
        }
      }
      producer.flush();
    }
  }

  private record Job(
      JobSpec spec,
      JobNames names,
      NodeRuntime node,
      CoordinatorRuntime coordinator,
      List<CheckpointStore> stores) {}

  @Test
  void shouldKeepTwoJobsApartOnOneBrokerAndOneHazelcastCluster() throws Exception {
    JobSpec alpha = job("alpha");
    JobSpec beta = job("beta");
    List<HazelcastInstance> members = new ArrayList<>();
    List<AutoCloseable> closing = new ArrayList<>();
    try (BrokerFixture broker = BrokerFixture.start()) {
      EmbeddedKafka kafka = broker.kafka();
      Admin admin = broker.admin();
      KafkaSettings settings = broker.settings();
      broker.provision(alpha);
      broker.provision(beta);
      List<Integer> ports =
          List.of(FreePorts.next(), FreePorts.next(), FreePorts.next(), FreePorts.next());
      List<String> list = ports.stream().map(p -> "127.0.0.1:" + p).toList();
      Map<String, Job> jobs = new HashMap<>();
      int m = 0;
      try {
        for (JobSpec j : List.of(alpha, beta)) {
          JobNames names = JobNames.of(j);
          HazelcastInstance hzNode =
              HazelcastMembers.start(
                  ClusterSettings.loopback("shared", ports.get(m++), list),
                  j.name() + "-node",
                  "node",
                  j.name());
          HazelcastInstance hzCoordinator =
              HazelcastMembers.start(
                  ClusterSettings.loopback("shared", ports.get(m++), list),
                  j.name() + "-coordinator",
                  "coordinator",
                  j.name());
          members.add(hzNode);
          members.add(hzCoordinator);
          CheckpointStore nodeStore =
              HazelcastCheckpointStore.create(
                  hzNode, settings, names, names.checkpointsTopic(), true);
          CheckpointStore coordinatorStore =
              HazelcastCheckpointStore.create(
                  hzCoordinator, settings, names, names.checkpointsTopic(), true);
          NodeRuntime node =
              NodeRuntime.start(
                  new NodeSettings(
                      j.name() + "-node",
                      j,
                      settings,
                      null,
                      NodeSettings.DEFAULT_MAX_PENDING_RECORDS,
                      NodeSettings.DEFAULT_TICK_INTERVAL,
                      Duration.ofSeconds(1),
                      null,
                      NodeSettings.NO_HTTP),
                  new SimpleMeterRegistry(),
                  Clock.systemUTC(),
                  nodeStore,
                  hzNode);
          closing.add(node);
          CoordinatorRuntime coordinator =
              CoordinatorRuntime.start(
                  new CoordinatorSettings(
                      j.name() + "-coordinator",
                      j,
                      settings,
                      null,
                      "127.0.0.1",
                      0,
                      CoordinatorSettings.DEFAULT_MAX_PENDING_RECORDS,
                      Duration.ofSeconds(1),
                      new HotKeySettings(
                          true,
                          null,
                          FanoutPolicy.Config.defaults()
                              .withQuietPeriod(Duration.ofSeconds(2))
                              .withMinTargetRate(100)),
                      true),
                  hzCoordinator,
                  new SimpleMeterRegistry(),
                  Clock.systemUTC(),
                  coordinatorStore);
          closing.add(coordinator);
          closing.add(nodeStore);
          closing.add(coordinatorStore);
          jobs.put(
              j.name(), new Job(j, names, node, coordinator, List.of(nodeStore, coordinatorStore)));
        }
        assertThat(members.get(0).getCluster().getMembers()).hasSize(4); // one cluster
        for (Job j : jobs.values()) {
          await().atMost(Duration.ofSeconds(60)).until(() -> j.node().readiness().ready());
          await().atMost(Duration.ofSeconds(60)).until(() -> j.coordinator().readiness().ready());
        }

        // when both jobs run at once
        CompletableFuture<Void> a =
            CompletableFuture.runAsync(
                () -> produce(kafka.bootstrapServers(), alpha.topics().events(), "a-"));
        CompletableFuture<Void> b =
            CompletableFuture.runAsync(
                () -> produce(kafka.bootstrapServers(), beta.topics().events(), "b-"));

        // then, while both run and both have published their hot key and a top-K: neither sees
        // the other's (checked once both are visible, so a shared map could not hide)
        HazelcastInstance any = members.get(0);
        await()
            .atMost(Duration.ofSeconds(15))
            .untilAsserted(
                () -> {
                  for (Job j : jobs.values()) {
                    String prefix = j.spec().name().equals("alpha") ? "a-" : "b-";
                    int port = j.coordinator().httpPort();
                    assertThat(keysOf(getJson(port, "/api/v1/hotkeys").getJsonArray("hot_keys")))
                        .contains(prefix + "hot");
                    assertThat(getJson(port, "/api/v1/topk?k=10").getJsonArray("keys"))
                        .isNotEmpty();
                  }
                });
        assertThat(a).isNotDone(); // still under load: no hot key has cooled down yet
        for (Job j : jobs.values()) {
          String prefix = j.spec().name().equals("alpha") ? "a-" : "b-";
          String other = prefix.equals("a-") ? "b-" : "a-";
          int port = j.coordinator().httpPort();
          assertThat(keysOf(getJson(port, "/api/v1/hotkeys").getJsonArray("hot_keys")))
              .noneMatch(k -> k.startsWith(other));
          assertThat(any.<String, byte[]>getMap(j.names().hotKeysMap()).keySet())
              .isNotEmpty()
              .allMatch(k -> k.startsWith(prefix));
          assertThat(keysOf(getJson(port, "/api/v1/topk?k=10").getJsonArray("keys")))
              .allMatch(k -> k.startsWith(prefix));
          List<HotKeyReport> reports =
              HotKeyReport.decodeAll(
                  any.<String, byte[]>getMap(j.names().hotKeyReportsMap()).values());
          assertThat(reports).isNotEmpty();
          for (HotKeyReport r : reports) {
            assertThat(r.candidates().keySet()).allMatch(k -> k.startsWith(prefix));
          }
        }
        CompletableFuture.allOf(a, b).get();

        // then each job's results count exactly its own events
        for (Job j : jobs.values()) {
          String prefix = j.spec().name().equals("alpha") ? "a-" : "b-";
          await()
              .atMost(Duration.ofSeconds(60))
              .untilAsserted(
                  () -> assertThat(countedIn(kafka, j.spec(), prefix)).isEqualTo(EVENTS));
        }

        for (Job j : jobs.values()) {
          String job = j.spec().name();
          // checkpoints and epochs: this job's partitions only
          Set<String> checkpoints =
              new TreeSet<>(any.<String, byte[]>getMap(j.names().checkpointsMap()).keySet());
          assertThat(checkpoints).isNotEmpty().allMatch(id -> id.contains("/" + job + "/"));
          Set<String> epochs =
              new TreeSet<>(any.<String, Long>getMap(j.names().epochsMap()).keySet());
          assertThat(epochs).isEqualTo(checkpoints);
        }
        // the internal topics and groups are the job's own
        Set<String> topics = admin.listTopics().names().get();
        assertThat(topics)
            .contains(
                "skewer.alpha.partials",
                "skewer.beta.partials",
                "skewer.alpha.checkpoints",
                "skewer.beta.checkpoints",
                "skewer.alpha.hotkeys",
                "skewer.beta.hotkeys");
        assertThat(
                admin
                    .listConsumerGroupOffsets("skewer-alpha-nodes")
                    .partitionsToOffsetAndMetadata()
                    .get()
                    .keySet())
            .allMatch(tp -> tp.topic().equals("alpha.events"));
        assertThat(
                admin
                    .listConsumerGroupOffsets("skewer-beta-coordinators")
                    .partitionsToOffsetAndMetadata()
                    .get()
                    .keySet())
            .allMatch(tp -> tp.topic().equals("skewer.beta.partials"));
      } finally {
        for (int i = closing.size() - 1; i >= 0; i--) {
          closing.get(i).close();
        }
        for (HazelcastInstance h : members) {
          h.getLifecycleService().terminate();
        }
      }
    }
  }

  private static List<String> keysOf(JsonArray entries) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < entries.size(); i++) {
      keys.add(entries.getJsonObject(i).getString("key"));
    }
    return keys;
  }

  /** Events counted by the latest revision of every result, after checking each key's prefix. */
  private static long countedIn(EmbeddedKafka kafka, JobSpec job, String prefix) {
    Map<String, ResultRecord> last = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r :
        TopicReader.readAll(
            kafka.bootstrapServers(), job.topics().results(), Duration.ofSeconds(20))) {
      String resultKey = new String(r.key(), StandardCharsets.UTF_8);
      ResultRecord rr = ResultRecord.parse(resultKey, r.value(), "key", "none");
      assertThat(rr.key()).startsWith(prefix);
      ResultRecord held = last.get(resultKey);
      if (held == null || rr.revision() > held.revision()) {
        last.put(resultKey, rr);
      }
    }
    return last.values().stream().mapToLong(ResultRecord::count).sum();
  }
}

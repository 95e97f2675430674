package dev.skewer.k8s;

import static org.awaitility.Awaitility.await;

import dev.skewer.core.job.JobSpec;
import dev.skewer.crossprocess.ClusterUnderTest;
import dev.skewer.loadgen.reference.ExactReference;
import dev.skewer.loadgen.workload.WorkloadSpec;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;

/**
 * What the chart-driven and multi-host tests share: the crossprocess scenarios' job (tumbling 10 s,
 * delay 2 s, lateness 5 s, finalize after 6 s idle, 4 event and 2 partials partitions, every topic
 * prefixed with the cluster name), a W1 workload with a hot key, disorder, late, malformed and
 * future events, its brute-force reference, HTTP probes and consumer group views.
 */
final class TestCluster {

  /** Consumer session timeout of every Skewer process in these tests. */
  static final Duration SESSION_TIMEOUT = Duration.ofSeconds(6);

  static final Duration READY_TIMEOUT = Duration.ofSeconds(120);

  private TestCluster() {}

  /** {@code target/<kind>/<name>-<time>}. */
  static Path workDir(String kind, String name) {
    return Path.of(
            "target",
            kind,
            name + "-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("HHmmss-SSS")))
        .toAbsolutePath();
  }

  static String jobYaml(String name) {
    return ClusterUnderTest.defaultJobYaml(name);
  }

  /** Kafka client properties for fast failover (what the crossprocess scenarios use). */
  static Map<String, String> kafkaProperties() {
    return Map.of(
        "session.timeout.ms",
        Long.toString(SESSION_TIMEOUT.toMillis()),
        "heartbeat.interval.ms",
        "1000");
  }

  /**
   * {@code events} W1 events over 1,000 keys (30% on the hot key) and 10,000 users, 1,000 per
   * simulated second starting 300 s ago, disordered by up to 3.5 s (some late within lateness),
   * 0.2% late by 25 s (late topic), 0.1% malformed and 0.05% future-dated (DLQ).
   */
  static WorkloadSpec workload(String name, long events, long seed) {
    return WorkloadSpec.w1(events, seed)
        .withName(name)
        .withKeys(1_000)
        .withUsers(10_000)
        .withHotKeyShare(0.3)
        .withTime(System.currentTimeMillis() - 300_000, 1_000)
        .withDisorder(Duration.ofMillis(3_500))
        .withLate(0.002, Duration.ofSeconds(25))
        .withMalformed(0.001)
        .withFuture(0.0005);
  }

  static ExactReference reference(JobSpec job) {
    return ExactReference.of(
        Duration.ofSeconds(10),
        Duration.ofSeconds(2),
        Duration.ofSeconds(5),
        job.topics().eventsPartitions(),
        job.toSketchSpec());
  }

  /** The HTTP status of {@code GET url}, or -1 when nothing answers. */
  static int httpStatus(String url) {
    try {
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
              HttpResponse.BodyHandlers.ofString());
      return r.statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /**
   * The body of {@code GET url} once it answers 200 (retried for up to a minute: on a loaded
   * machine a request can time out); AssertionError naming the URL otherwise.
   */
  static String httpBody(String url) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    String[] body = new String[1];
    await()
        .atMost(Duration.ofMinutes(1))
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .alias("GET " + url + " answers 200")
        .until(
            () -> {
              HttpResponse<String> r =
                  http.send(
                      HttpRequest.newBuilder(URI.create(url))
                          .timeout(Duration.ofSeconds(15))
                          .build(),
                      HttpResponse.BodyHandlers.ofString());
              body[0] = r.body();
              return r.statusCode() == 200;
            });
    return body[0];
  }

  /** Waits until {@code url} answers 200; fails naming the process and its log tail otherwise. */
  static void awaitOk(String url, HostProcess process) {
    await()
        .atMost(READY_TIMEOUT)
        .pollInterval(Duration.ofMillis(500))
        .failFast(process + " exited" + process.tail(30), () -> !process.isAlive())
        .until(() -> httpStatus(url) == 200);
  }

  /**
   * Waits until {@code GET clusterUrl} (a coordinator's {@code /api/v1/cluster}) lists {@code size}
   * members named {@code names}.
   */
  static void awaitMembers(String clusterUrl, java.util.Collection<String> names, int size) {
    com.fasterxml.jackson.databind.ObjectMapper json =
        new com.fasterxml.jackson.databind.ObjectMapper();
    Set<String> expected = new TreeSet<>(names);
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .until(
            () -> {
              var cluster = json.readTree(httpBody(clusterUrl));
              Set<String> seen = new TreeSet<>();
              cluster.path("members").forEach(m -> seen.add(m.path("name").asText()));
              return cluster.path("size").asInt() == size && seen.equals(expected);
            });
  }

  /** The sum of every sample of {@code name} (any labels) in a Prometheus text exposition. */
  static long metric(String exposition, String name) {
    double sum = 0;
    for (String line : exposition.split("\n")) {
      if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return (long) sum;
  }

  /**
   * A consumer group as the broker sees it.
   *
   * @param state the group state
   * @param members member client ids
   * @param assigned every assigned partition of {@code topic}
   * @param byClient client id → its partitions of {@code topic}
   */
  record Group(
      GroupState state,
      List<String> members,
      Set<Integer> assigned,
      Map<String, Set<Integer>> byClient) {

    boolean stableWith(int memberCount, int partitions) {
      return state == GroupState.STABLE
          && members.size() == memberCount
          && assigned.size() == partitions;
    }
  }

  static Admin admin(String bootstrap) {
    Map<String, Object> c = new HashMap<>();
    c.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    c.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
    c.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5_000);
    return Admin.create(c);
  }

  /** {@code group}'s view, or null when the broker does not answer. */
  static Group describe(Admin admin, String group, String topic) {
    try {
      ConsumerGroupDescription d =
          admin
              .describeConsumerGroups(List.of(group))
              .describedGroups()
              .get(group)
              .get(5, TimeUnit.SECONDS);
      Set<Integer> assigned = new TreeSet<>();
      Map<String, Set<Integer>> byClient = new HashMap<>();
      List<String> members = new java.util.ArrayList<>();
      for (MemberDescription m : d.members()) {
        members.add(m.clientId());
        for (TopicPartition tp : m.assignment().topicPartitions()) {
          if (tp.topic().equals(topic)) {
            assigned.add(tp.partition());
            byClient.computeIfAbsent(m.clientId(), k -> new TreeSet<>()).add(tp.partition());
          }
        }
      }
      return new Group(d.groupState(), members, assigned, byClient);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (Exception e) {
      return null;
    }
  }
}

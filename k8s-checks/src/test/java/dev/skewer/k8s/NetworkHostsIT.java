package dev.skewer.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skewer.testkit.kafka.KafkaBrokerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The multi-host harness on its own: a Kafka broker on one namespace host is reachable from another
 * host and from the test JVM over the bridge, is unreachable while its host is cut off, and is
 * reachable again once healed; the namespaces are gone afterwards.
 */
class NetworkHostsIT {

  @BeforeAll
  static void requireNamespaces() {
    Optional<String> why = NetworkHosts.unavailable();
    Assumptions.assumeTrue(why.isEmpty(), () -> "skipped: " + why.orElse(""));
  }

  @Test
  void shouldReachABrokerOnAnotherHostOnlyWhileItsHostIsConnected() {
    List<String> namespaces = new ArrayList<>();
    try (NetworkHosts net = NetworkHosts.create(2)) {
      net.hosts().forEach(h -> namespaces.add(h.namespace()));
      NetworkHosts.Host brokerHost = net.host(1);
      NetworkHosts.Host other = net.host(2);
      Path dataDir = Path.of("target", "network-hosts", brokerHost.namespace());
      try (KafkaBrokerProcess broker =
          KafkaBrokerProcess.start(dataDir, brokerHost.address(), 9092, brokerHost.exec())) {
        // the test JVM reaches it over the bridge (start() waited for a describeCluster)
        assertThat(broker.bootstrapServers()).isEqualTo(brokerHost.address() + ":9092");
        // so does a process on the other host
        assertThat(connects(other, brokerHost.address(), 9092)).isTrue();
        // not while the broker's host is cut off
        net.cut(brokerHost);
        assertThat(connects(other, brokerHost.address(), 9092)).isFalse();
        assertThat(answers(broker.bootstrapServers())).isFalse();
        // and again once it is back
        net.heal(brokerHost);
        await().atMost(Duration.ofSeconds(30)).until(() -> answers(broker.bootstrapServers()));
        assertThat(connects(other, brokerHost.address(), 9092)).isTrue();
      }
    }
    String left = NetworkHosts.run(List.of("ip", "netns", "list")).output();
    for (String ns : namespaces) {
      assertThat(left).as("namespaces removed").doesNotContain(ns);
    }
  }

  /** Whether a TCP connection from {@code from} to {@code address:port} opens within 3 s. */
  static boolean connects(NetworkHosts.Host from, String address, int port) {
    List<String> command = new ArrayList<>(from.exec());
    command.addAll(
        List.of("timeout", "3", "bash", "-c", "exec 3<>/dev/tcp/" + address + "/" + port));
    return NetworkHosts.run(command).ok();
  }

  static boolean answers(String bootstrap) {
    try (Admin admin =
        Admin.create(
            Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3_000))) {
      admin.describeCluster().nodes().get(4, TimeUnit.SECONDS);
      return true;
    } catch (Exception e) {
      return false;
    }
  }
}

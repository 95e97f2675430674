package dev.skewer.testkit.kafka;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;

/**
 * The server.properties of a single-node KRaft broker+controller on loopback, its storage
 * formatting and a readiness probe. Shared by {@link EmbeddedKafka} and {@link KafkaBrokerProcess};
 * not public API.
 */
final class BrokerConfig {

  static final String PROPERTIES_FILE = "server.properties";
  static final String LOG_DIR = "kafka-logs";
  private static final int NODE_ID = 1;

  static final String LOOPBACK = "127.0.0.1";

  private final Path dataDir;
  private final String host;
  private final int brokerPort;
  private final int controllerPort;
  private Map<String, String> overrides = Map.of();

  BrokerConfig(Path dataDir, int brokerPort, int controllerPort) {
    this(dataDir, LOOPBACK, brokerPort, controllerPort);
  }

  /**
   * @param host the address both listeners bind and advertise (loopback, or a test host's address
   *     in a network namespace)
   */
  BrokerConfig(Path dataDir, String host, int brokerPort, int controllerPort) {
    if (host == null || host.isBlank()) {
      throw new IllegalArgumentException("host must be non-blank, was " + host);
    }
    this.host = host;
    if (brokerPort <= 0 || brokerPort > 65535) {
      throw new IllegalArgumentException("brokerPort must be in 1..65535: " + brokerPort);
    }
    if (controllerPort <= 0 || controllerPort > 65535 || controllerPort == brokerPort) {
      throw new IllegalArgumentException(
          "controllerPort must be in 1..65535 and differ from brokerPort: " + controllerPort);
    }
    this.dataDir = dataDir.toAbsolutePath();
    this.brokerPort = brokerPort;
    this.controllerPort = controllerPort;
  }

  /**
   * The controller port a previous start in {@code dataDir} used (read from its server.properties),
   * or {@code fallback}: a restarted node keeps its quorum endpoint.
   */
  static int previousControllerPort(Path dataDir, int fallback) {
    Path file = dataDir.resolve(PROPERTIES_FILE);
    if (!Files.exists(file)) {
      return fallback;
    }
    Properties previous = new Properties();
    try (var in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      previous.load(in);
    } catch (IOException e) {
      return fallback;
    }
    String voters = previous.getProperty("controller.quorum.voters", "");
    int colon = voters.lastIndexOf(':');
    if (colon < 0) {
      return fallback;
    }
    try {
      return Integer.parseInt(voters.substring(colon + 1).trim());
    } catch (NumberFormatException e) {
      return fallback;
    }
  }

  Path dataDir() {
    return dataDir;
  }

  int brokerPort() {
    return brokerPort;
  }

  int controllerPort() {
    return controllerPort;
  }

  Path logDir() {
    return dataDir.resolve(LOG_DIR);
  }

  Path propertiesFile() {
    return dataDir.resolve(PROPERTIES_FILE);
  }

  String bootstrapServers() {
    return host + ":" + brokerPort;
  }

  Properties properties() {
    Properties p = new Properties();
    p.setProperty("process.roles", "broker,controller");
    p.setProperty("node.id", Integer.toString(NODE_ID));
    p.setProperty("controller.quorum.voters", NODE_ID + "@" + host + ":" + controllerPort);
    p.setProperty(
        "listeners",
        "PLAINTEXT://" + host + ":" + brokerPort + ",CONTROLLER://" + host + ":" + controllerPort);
    p.setProperty("advertised.listeners", "PLAINTEXT://" + host + ":" + brokerPort);
    p.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    p.setProperty("controller.listener.names", "CONTROLLER");
    p.setProperty("inter.broker.listener.name", "PLAINTEXT");
    p.setProperty("log.dirs", logDir().toString());
    // a single broker: every internal topic with one replica
    p.setProperty("offsets.topic.replication.factor", "1");
    p.setProperty("offsets.topic.num.partitions", "10");
    p.setProperty("transaction.state.log.replication.factor", "1");
    p.setProperty("transaction.state.log.min.isr", "1");
    p.setProperty("transaction.state.log.num.partitions", "10");
    p.setProperty("share.coordinator.state.topic.replication.factor", "1");
    p.setProperty("share.coordinator.state.topic.min.isr", "1");
    p.setProperty("group.initial.rebalance.delay.ms", "0");
    // after a kill -9 the restarted controller fences the dead incarnation only once its session
    // times out (default 9 s); a short session makes a restart ready in ~3 s instead of ~12 s
    p.setProperty("broker.session.timeout.ms", "3000");
    p.setProperty("broker.heartbeat.interval.ms", "500");
    // benchmark data is from 2023: time-based retention would delete it on arrival
    p.setProperty("log.retention.ms", "-1");
    p.setProperty("auto.create.topics.enable", "false");
    p.setProperty("num.partitions", "1");
    // a shared 2-core machine: few threads, a small cleaner buffer (default 128 MiB)
    p.setProperty("num.network.threads", "2");
    p.setProperty("num.io.threads", "4");
    p.setProperty("num.recovery.threads.per.data.dir", "1");
    p.setProperty("background.threads", "4");
    p.setProperty("log.cleaner.threads", "1");
    p.setProperty("log.cleaner.dedupe.buffer.size", Integer.toString(16 * 1024 * 1024));
    p.putAll(overrides);
    return p;
  }

  /** Broker properties that replace this class's (e.g. {@code auto.create.topics.enable=true}). */
  void override(Map<String, String> properties) {
    this.overrides = Map.copyOf(properties);
  }

  /** Writes server.properties into the data dir and returns its path. */
  Path writeProperties() {
    try {
      Files.createDirectories(dataDir);
      Path file = propertiesFile();
      try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
        properties().store(out, "Skewer testkit single-node KRaft broker");
      }
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + propertiesFile(), e);
    }
  }

  boolean isFormatted() {
    return Files.exists(logDir().resolve("meta.properties"));
  }

  /** Formats the log dir with a fresh cluster id unless it is formatted already. */
  void formatIfNeeded() {
    if (isFormatted()) {
      return;
    }
    Path file = writeProperties();
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    int rc;
    try (PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
      rc =
          kafka.tools.StorageTool.execute(
              new String[] {"format", "-t", Uuid.randomUuid().toString(), "-c", file.toString()},
              out);
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "formatting " + logDir() + " failed: " + captured.toString(StandardCharsets.UTF_8), e);
    }
    if (rc != 0) {
      throw new IllegalStateException(
          "formatting "
              + logDir()
              + " failed (rc="
              + rc
              + "): "
              + captured.toString(StandardCharsets.UTF_8));
    }
  }

  /**
   * Blocks until the broker answers a describeCluster with itself among the nodes.
   *
   * @param alive checked between attempts; readiness fails fast once it turns false
   */
  static void awaitReady(String bootstrap, Duration timeout, BooleanSupplier alive)
      throws TimeoutException {
    long deadline = System.nanoTime() + timeout.toNanos();
    Exception last = null;
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2_000);
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3_000);
    props.put(AdminClientConfig.RECONNECT_BACKOFF_MS_CONFIG, 50);
    props.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200);
    props.put(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, 50);
    try (Admin admin = Admin.create(props)) {
      while (System.nanoTime() < deadline) {
        if (!alive.getAsBoolean()) {
          throw new IllegalStateException("broker at " + bootstrap + " died while starting", last);
        }
        try {
          var nodes = admin.describeCluster().nodes().get(3, TimeUnit.SECONDS);
          if (nodes.stream().map(Node::id).anyMatch(id -> id == NODE_ID)) {
            return;
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while waiting for " + bootstrap, e);
        } catch (ExecutionException | TimeoutException e) {
          last = e;
        }
        try {
          Thread.sleep(50); // polling a remote broker: no event to wait on
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while waiting for " + bootstrap, e);
        }
      }
    }
    TimeoutException timeoutException =
        new TimeoutException("broker at " + bootstrap + " not ready within " + timeout);
    if (last != null) {
      timeoutException.initCause(last);
    }
    throw timeoutException;
  }

  static Map<String, Object> adminConfig(String bootstrap) {
    return Map.of(
        AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
        bootstrap,
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
        30_000);
  }
}

package dev.skewer.testkit.kafka;

import dev.skewer.core.net.FreePorts;
import dev.skewer.testkit.files.Directories;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.utils.Exit;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node Kafka broker (KRaft, combined broker and controller) running in this JVM on
 * loopback ports.
 *
 * <p>Settings suit one broker: every internal topic has one replica, the group coordinator does not
 * delay the first rebalance, retention by time is off (benchmark events are from 2023), topics are
 * never auto-created. {@link #start} returns once the broker answers a describeCluster.
 *
 * <p>Starting one installs Kafka's {@link Exit} exit and halt procedures for the whole JVM: a
 * broker fault that would call {@code System.exit} or {@code Runtime.halt} throws instead and is
 * logged, so it cannot kill a test runner or the demo launcher.
 *
 * <p>Thread-safe; {@link #close} is idempotent.
 *
 * <p>Implementation note: formats storage with {@code kafka.tools.StorageTool} and runs {@code
 * kafka.server.KafkaRaftServer} directly, the same path {@code kafka.Kafka} takes, without the
 * internal test harness ({@code KafkaClusterTestKit}) and its JUnit runtime dependency.
 */
public final class EmbeddedKafka implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafka.class);
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

  private final BrokerConfig config;
  private final KafkaRaftServer server;
  private final boolean deleteOnClose;
  private Admin admin;
  private boolean closed;

  private EmbeddedKafka(BrokerConfig config, KafkaRaftServer server, boolean deleteOnClose) {
    this.config = config;
    this.server = server;
    this.deleteOnClose = deleteOnClose;
  }

  /** Starts a broker on free ports in a fresh temporary directory, deleted on {@link #close}. */
  public static EmbeddedKafka start() {
    return start(Map.of());
  }

  /**
   * Starts a broker on free ports in a fresh temporary directory with {@code brokerProperties} in
   * place of the defaults they name (e.g. {@code auto.create.topics.enable=true}, Kafka's own
   * default, which this class otherwise turns off).
   */
  public static EmbeddedKafka start(Map<String, String> brokerProperties) {
    Path dir;
    try {
      dir = Files.createTempDirectory("skewer-kafka-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary directory", e);
    }
    return start(dir, 0, true, brokerProperties);
  }

  /**
   * Starts a broker whose data lives in {@code dataDir} (kept on close; formatted only if it is not
   * formatted yet, so a second start resumes the same topics).
   *
   * @param port the client (PLAINTEXT) port, or 0 for a free one
   */
  public static EmbeddedKafka start(Path dataDir, int port) {
    return start(dataDir, port, false, Map.of());
  }

  private static EmbeddedKafka start(
      Path dataDir, int port, boolean deleteOnClose, Map<String, String> brokerProperties) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be 0 (free) or in 1..65535: " + port);
    }
    ExitGuard.install();
    long startNs = System.nanoTime();
    int brokerPort = port == 0 ? FreePorts.next() : port;
    int controllerPort = BrokerConfig.previousControllerPort(dataDir, 0);
    if (controllerPort == 0 || controllerPort == brokerPort) {
      controllerPort = FreePorts.next();
    }
    BrokerConfig config = new BrokerConfig(dataDir, brokerPort, controllerPort);
    config.override(brokerProperties);
    config.formatIfNeeded();
    config.writeProperties();
    KafkaRaftServer server =
        new KafkaRaftServer(new KafkaConfig(config.properties(), false), Time.SYSTEM);
    server.startup();
    EmbeddedKafka kafka = new EmbeddedKafka(config, server, deleteOnClose);
    try {
      BrokerConfig.awaitReady(config.bootstrapServers(), READY_TIMEOUT, () -> true);
    } catch (TimeoutException | RuntimeException e) {
      kafka.close();
      throw new IllegalStateException("embedded Kafka did not start in " + dataDir, e);
    }
    LOG.info(
        "embedded Kafka ready at {} in {} ms (data {})",
        config.bootstrapServers(),
        (System.nanoTime() - startNs) / 1_000_000,
        dataDir);
    return kafka;
  }

  /** {@code host:port} of the PLAINTEXT listener. */
  public String bootstrapServers() {
    return config.bootstrapServers();
  }

  /** The directory holding server.properties and the log dir. */
  public Path dataDir() {
    return config.dataDir();
  }

  /**
   * Creates a topic with replication factor 1 and returns once every partition has a leader.
   *
   * @param configs topic configs such as {@code cleanup.policy=compact}; may be empty
   */
  public void createTopic(String name, int partitions, Map<String, String> configs) {
    Topics.create(admin(), name, partitions, configs);
  }

  /** A shared Admin client for this broker, closed by {@link #close}; callers must not close it. */
  public synchronized Admin admin() {
    if (closed) {
      throw new IllegalStateException("broker at " + bootstrapServers() + " is closed");
    }
    if (admin == null) {
      admin = Admin.create(BrokerConfig.adminConfig(bootstrapServers()));
    }
    return admin;
  }

  /** Shuts the broker down, waits for it, and deletes the data dir if it was temporary. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (admin != null) {
      admin.close(Duration.ofSeconds(5));
    }
    try {
      server.shutdown();
      server.awaitShutdown();
    } finally {
      if (deleteOnClose) {
        deleteRecursively(config.dataDir());
      }
    }
    LOG.info("embedded Kafka at {} stopped", bootstrapServers());
  }

  static void deleteRecursively(Path dir) {
    try {
      Directories.deleteRecursively(dir);
    } catch (IOException e) {
      LOG.warn("cannot delete {}: {}", dir, e.toString());
    }
  }

  /** Installs Kafka's exit and halt procedures once per JVM. */
  static final class ExitGuard {
    private static boolean installed;

    private ExitGuard() {}

    static synchronized void install() {
      if (installed) {
        return;
      }
      installed = true;
      Exit.setExitProcedure(
          (code, message) -> {
            LOG.error("Kafka requested exit({}): {}; refused", code, message);
            throw new IllegalStateException("Kafka requested exit(" + code + "): " + message);
          });
      Exit.setHaltProcedure(
          (code, message) -> {
            LOG.error("Kafka requested halt({}): {}; refused", code, message);
            throw new IllegalStateException("Kafka requested halt(" + code + "): " + message);
          });
    }
  }
}

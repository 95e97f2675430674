package dev.skewer.testkit.kafka;

import dev.skewer.core.net.FreePorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node Kafka broker (KRaft, combined broker and controller) in a child JVM, for tests
 * that kill, stop and restart the broker.
 *
 * <p>The child runs {@code java -Xmx512m -cp <this JVM's class path> kafka.Kafka
 * server.properties}; storage is formatted in this JVM before the first start only, so {@link
 * #restart} resumes the same log on the same ports. The child's stdout and stderr are appended to
 * {@code broker.log} in the data dir. Every start returns once the broker answers a
 * describeCluster.
 *
 * <p>Not thread-safe: one test thread drives it. {@link #close} is idempotent and kills the child
 * if it is still running; the data dir is kept.
 */
public final class KafkaBrokerProcess implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaBrokerProcess.class);
  public static final String LOG_FILE = "broker.log";
  public static final String DEFAULT_MAX_HEAP = "512m";
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

  private final BrokerConfig config;
  private Process process;

  private KafkaBrokerProcess(BrokerConfig config) {
    this.config = config;
  }

  /**
   * Formats {@code dataDir} if needed and starts a broker child process.
   *
   * @param port the client (PLAINTEXT) port, or 0 for a free one (kept across restarts)
   */
  public static KafkaBrokerProcess start(Path dataDir, int port) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be 0 (free) or in 1..65535: " + port);
    }
    int brokerPort = port == 0 ? FreePorts.next() : port;
    int controllerPort = BrokerConfig.previousControllerPort(dataDir, 0);
    if (controllerPort == 0 || controllerPort == brokerPort) {
      controllerPort = FreePorts.next();
    }
    BrokerConfig config = new BrokerConfig(dataDir, brokerPort, controllerPort);
    config.formatIfNeeded();
    config.writeProperties();
    KafkaBrokerProcess broker = new KafkaBrokerProcess(config);
    broker.launch();
    return broker;
  }

  /** {@code host:port} of the PLAINTEXT listener (the same across restarts). */
  public String bootstrapServers() {
    return config.bootstrapServers();
  }

  public Path dataDir() {
    return config.dataDir();
  }

  /** The child's combined stdout and stderr. */
  public Path logFile() {
    return config.dataDir().resolve(LOG_FILE);
  }

  /** Whether the child process is running. */
  public boolean isAlive() {
    return process != null && process.isAlive();
  }

  /** The child's process id; IllegalStateException if it is not running. */
  public long pid() {
    if (!isAlive()) {
      throw new IllegalStateException("broker at " + bootstrapServers() + " is not running");
    }
    return process.pid();
  }

  /**
   * Creates a topic with replication factor 1 and returns once every partition has a leader.
   *
   * @param configs topic configs; may be empty
   */
  public void createTopic(String name, int partitions, Map<String, String> configs) {
    try (Admin admin = Admin.create(BrokerConfig.adminConfig(bootstrapServers()))) {
      Topics.create(admin, name, partitions, configs);
    }
  }

  /** SIGKILL: the broker gets no chance to flush or shut down cleanly. Waits for the exit. */
  public void kill() {
    if (process == null) {
      return;
    }
    process.destroyForcibly();
    awaitExit(process, STOP_TIMEOUT);
    LOG.info("broker at {} killed (pid {})", bootstrapServers(), process.pid());
  }

  /** SIGTERM and waits for a clean shutdown; SIGKILL if it takes longer than 30 s. */
  public void stop() {
    if (process == null || !process.isAlive()) {
      return;
    }
    process.destroy();
    if (!awaitExit(process, STOP_TIMEOUT)) {
      LOG.warn("broker at {} ignored SIGTERM for {}: killing", bootstrapServers(), STOP_TIMEOUT);
      process.destroyForcibly();
      awaitExit(process, STOP_TIMEOUT);
    }
    LOG.info("broker at {} stopped (exit {})", bootstrapServers(), process.exitValue());
  }

  /**
   * Starts the broker again on the same data dir and ports without re-formatting, stopping it
   * gracefully first if it is still running; returns this.
   */
  public KafkaBrokerProcess restart() {
    stop();
    launch();
    return this;
  }

  /** Kills the child if it is still running; the data dir is kept. */
  @Override
  public void close() {
    if (process != null && process.isAlive()) {
      process.destroyForcibly();
      awaitExit(process, STOP_TIMEOUT);
    }
  }

  private void launch() {
    long startNs = System.nanoTime();
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx" + DEFAULT_MAX_HEAP);
    command.add("-XX:+UseSerialGC");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-Dlogback.configurationFile=" + writeLogbackConfig());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("kafka.Kafka");
    command.add(config.propertiesFile().toString());
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()));
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start a broker JVM: " + command, e);
    }
    Process started = process;
    try {
      BrokerConfig.awaitReady(bootstrapServers(), READY_TIMEOUT, started::isAlive);
    } catch (TimeoutException | RuntimeException e) {
      close();
      throw new IllegalStateException(
          "broker child did not become ready; see " + logFile() + tail(), e);
    }
    LOG.info(
        "broker child ready at {} in {} ms (pid {})",
        bootstrapServers(),
        (System.nanoTime() - startNs) / 1_000_000,
        process.pid());
  }

  /** A logback config for the child (used if logback is on the class path): Kafka at WARN. */
  private Path writeLogbackConfig() {
    Path file = config.dataDir().resolve("broker-logback.xml");
    String xml =
        "<configuration>\n"
            + "  <appender name=\"OUT\" class=\"ch.qos.logback.core.ConsoleAppender\">\n"
            + "    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{30} - %msg%n"
            + "</pattern></encoder>\n"
            + "  </appender>\n"
            + "  <logger name=\"org.apache.kafka\" level=\"WARN\"/>\n"
            + "  <logger name=\"kafka\" level=\"WARN\"/>\n"
            + "  <logger name=\"state.change.logger\" level=\"WARN\"/>\n"
            + "  <root level=\"INFO\"><appender-ref ref=\"OUT\"/></root>\n"
            + "</configuration>\n";
    try {
      Files.writeString(file, xml, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
    return file;
  }

  private String tail() {
    try {
      List<String> lines = Files.readAllLines(logFile(), StandardCharsets.UTF_8);
      return "\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException | UncheckedIOException e) {
      return "";
    }
  }

  private static boolean awaitExit(Process process, Duration timeout) {
    try {
      return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}

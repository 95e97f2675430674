package dev.skewer.crossprocess;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Skewer node or coordinator running as a child JVM ({@code skewer node|coordinator ...}
 * through {@link OrphanGuard}), with the signals a failure test needs: {@link #kill} (SIGKILL),
 * {@link #stop} (SIGTERM), {@link #pause} (SIGSTOP), {@link #resume} (SIGCONT), {@link #restart}.
 *
 * <p>The child runs {@code java -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 <Hazelcast flags>
 * -cp <this JVM's class path>} (or the class path named by {@value #CLASS_PATH_PROPERTY}). C1 only:
 * a child lives for a minute, too short for the C2 compiler's work to pay off, and five of them
 * start at once on the suite's two cores (the module ran in 357 s against 434 s with both
 * compilers). Its stdout and stderr are appended to {@link #logFile()}, one file per process across
 * restarts (each start writes a marker line first). Children are started with {@code
 * --no-provision}: the cluster provisions topics once.
 *
 * <p>Every process ever started is registered so that one JVM shutdown hook kills leftovers even
 * when a test forgets to close; {@link OrphanGuard} covers the case where the test JVM itself is
 * killed.
 *
 * <p>Not thread-safe: one test thread drives it.
 */
public final class SkewerProcess implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(SkewerProcess.class);

  /** What the Hazelcast docs ask for on Java 9+; the parent POM's {@code hazelcast.jvm.flags}. */
  public static final List<String> HAZELCAST_JVM_FLAGS =
      List.of(
          "--add-modules", "java.se",
          "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED",
          "--add-opens", "java.base/java.lang=ALL-UNNAMED",
          "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
          "--add-opens", "java.management/sun.management=ALL-UNNAMED",
          "--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED");

  public static final String DEFAULT_MAX_HEAP = "512m";

  /** Runs the children on this class path (e.g. the shaded launcher jar) instead of the test's. */
  public static final String CLASS_PATH_PROPERTY = "skewer.crossprocess.classpath";

  public static final String MAIN_CLASS = "dev.skewer.launcher.SkewerCli";

  /** The exit status the JDK reports for a child that died of SIGKILL (128 + 9). */
  public static final int SIGKILL_STATUS = 137;

  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
  private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(() -> LIVE.forEach(p -> p.destroyForcibly()), "skewer-crossprocess-reaper"));
  }

  /** A node or a coordinator. */
  public enum Role {
    NODE("node", "-events"),
    COORDINATOR("coordinator", "-partials");

    private final String command;
    private final String clientIdSuffix;

    Role(String command, String clientIdSuffix) {
      this.command = command;
      this.clientIdSuffix = clientIdSuffix;
    }

    public String command() {
      return command;
    }
  }

  /**
   * How to start one process.
   *
   * @param role node or coordinator
   * @param id the process's {@code --id}; also names its log file
   * @param jobFile the job YAML
   * @param bootstrap Kafka bootstrap servers
   * @param hazelcastPort this process's Hazelcast member port
   * @param hazelcastMembers every member of the cluster, this one included
   * @param kafkaProperties passed as {@code -X key=value}
   * @param httpPort the HTTP port of /health and /metrics (and the coordinator API); 0 = none
   * @param extraArgs further CLI arguments (e.g. {@code --group g --checkpoint-topic t})
   * @param workDir where the log file and the child's logback config go
   */
  public record Spec(
      Role role,
      String id,
      Path jobFile,
      String bootstrap,
      int hazelcastPort,
      List<String> hazelcastMembers,
      Map<String, String> kafkaProperties,
      int httpPort,
      List<String> extraArgs,
      Path workDir) {

    public Spec {
      if (role == null || id == null || id.isBlank() || jobFile == null || bootstrap == null) {
        throw new IllegalArgumentException(
            "role, id, jobFile and bootstrap are required, were "
                + role
                + ", "
                + id
                + ", "
                + jobFile
                + ", "
                + bootstrap);
      }
      if (hazelcastPort < 1 || hazelcastPort > 65535) {
        throw new IllegalArgumentException(
            "hazelcastPort must be in 1..65535, was " + hazelcastPort);
      }
      if (role == Role.COORDINATOR && (httpPort < 1 || httpPort > 65535)) {
        throw new IllegalArgumentException("httpPort must be in 1..65535, was " + httpPort);
      }
      hazelcastMembers = List.copyOf(hazelcastMembers);
      kafkaProperties = Map.copyOf(kafkaProperties);
      extraArgs = List.copyOf(extraArgs);
    }
  }

  private final Spec spec;
  private final Path logFile;
  private Process process;
  private long logOffsetAtStart;
  private int starts;

  private SkewerProcess(Spec spec) {
    this.spec = spec;
    this.logFile = spec.workDir().resolve(spec.id() + ".log");
  }

  /** Launches the child; returns at once (see {@link #awaitReady}). */
  public static SkewerProcess launch(Spec spec) {
    SkewerProcess p = new SkewerProcess(spec);
    p.start();
    return p;
  }

  public Spec spec() {
    return spec;
  }

  public String id() {
    return spec.id();
  }

  public Role role() {
    return spec.role();
  }

  /** The Kafka client id of the process's consumer, as shown by describeConsumerGroups. */
  public String consumerClientId() {
    return "skewer-" + spec.id() + spec.role().clientIdSuffix;
  }

  public Path logFile() {
    return logFile;
  }

  /** How many times the child has been launched. */
  public int starts() {
    return starts;
  }

  /** Whether the child is running (a paused child is alive). */
  public boolean isAlive() {
    return process != null && process.isAlive();
  }

  /** The child's pid; IllegalStateException if it is not running. */
  public long pid() {
    if (!isAlive()) {
      throw new IllegalStateException(spec.id() + " is not running");
    }
    return process.pid();
  }

  /** Launches the child if it is not running; returns at once. */
  public void start() {
    if (isAlive()) {
      return;
    }
    List<String> command = command();
    try {
      Files.createDirectories(spec.workDir());
      List<String> args = command.subList(command.indexOf(MAIN_CLASS), command.size());
      String marker = "----- " + Instant.now() + " start #" + (starts + 1) + ": " + args + "\n";
      Files.writeString(
          logFile,
          marker,
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
      logOffsetAtStart = Files.size(logFile);
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
      builder.environment().keySet().removeIf(k -> k.startsWith("SKEWER_"));
      process = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + spec.id() + ": " + command, e);
    }
    LIVE.add(process);
    starts++;
    LOG.info("{} started (pid {}), log {}", spec.id(), process.pid(), logFile);
  }

  /**
   * Waits until the process is ready: the CLI has printed that it is running and, for a
   * coordinator, {@code GET /health/ready} answers 200. Fails at once if the child exits.
   */
  public void awaitReady(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    HttpClient http =
        spec.role() == Role.COORDINATOR
            ? HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build()
            : null;
    while (true) {
      if (!isAlive()) {
        throw new IllegalStateException(
            spec.id()
                + " exited with "
                + (process == null ? "?" : process.exitValue())
                + " before it was ready; log "
                + logFile
                + tail(40));
      }
      if (logSinceStart().contains(spec.role().command() + " " + spec.id() + " running")
          && (http == null || healthReady(http))) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            spec.id() + " not ready within " + timeout + "; log " + logFile + tail(40));
      }
      park(Duration.ofMillis(200));
    }
  }

  /** SIGKILL, and waits for the exit. On Linux {@code destroyForcibly} sends SIGKILL. */
  public void kill() {
    if (!isAlive()) {
      return;
    }
    process.destroyForcibly();
    if (!awaitExit(STOP_TIMEOUT)) {
      throw new IllegalStateException(spec.id() + " survived SIGKILL for " + STOP_TIMEOUT);
    }
    if (process.exitValue() != SIGKILL_STATUS) {
      LOG.warn(
          "{} exited with {} after destroyForcibly, not {} (SIGKILL)",
          spec.id(),
          process.exitValue(),
          SIGKILL_STATUS);
    }
    LOG.info("{} killed (exit {})", spec.id(), process.exitValue());
  }

  /** SIGKILL without waiting for the exit (to kill several processes at the same instant). */
  void killNoWait() {
    if (isAlive()) {
      process.destroyForcibly();
    }
  }

  /** SIGTERM and waits for an orderly exit; SIGKILL after 30 s. */
  public void stop() {
    if (!isAlive()) {
      return;
    }
    process.destroy();
    if (!awaitExit(STOP_TIMEOUT)) {
      LOG.warn("{} ignored SIGTERM for {}: killing", spec.id(), STOP_TIMEOUT);
      kill();
    }
  }

  /** SIGSTOP: the process freezes, sockets open, heartbeats stop. */
  public void pause() {
    signal(UnixSignal.STOP);
  }

  /** SIGCONT after {@link #pause}. */
  public void resume() {
    signal(UnixSignal.CONT);
  }

  /**
   * SIGQUIT: the JVM writes every thread's stack to its log (a paused one once it is resumed), for
   * the record of a failed scenario. No-op if it is not running.
   */
  public void dumpThreads() {
    if (isAlive() && UnixSignal.QUIT.sendTo(process.pid())) {
      LOG.info("{} sent SIGQUIT (thread dump in {})", spec.id(), logFile);
    }
  }

  /** Stops the process if it still runs (SIGTERM) and launches it again with the same spec. */
  public void restart() {
    stop();
    start();
  }

  /** Kills the child if it is still running. Idempotent. */
  @Override
  public void close() {
    if (process != null) {
      if (process.isAlive()) {
        UnixSignal.CONT.sendTo(process.pid()); // harmless if it was not paused
        process.destroyForcibly();
        awaitExit(STOP_TIMEOUT);
      }
      LIVE.remove(process);
    }
  }

  /** The last {@code lines} lines of the log, for failure messages. */
  public String tail(int lines) {
    try {
      List<String> all = Files.readAllLines(logFile, StandardCharsets.UTF_8);
      return "\n" + String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException | UncheckedIOException e) {
      return "";
    }
  }

  @Override
  public String toString() {
    return spec.id() + (isAlive() ? " (pid " + process.pid() + ")" : " (not running)");
  }

  private List<String> command() {
    List<String> c = new ArrayList<>();
    c.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    c.add("-Xmx" + DEFAULT_MAX_HEAP);
    c.add("-XX:+UseSerialGC");
    c.add("-XX:TieredStopAtLevel=1");
    c.addAll(HAZELCAST_JVM_FLAGS);
    c.add("-Dlogback.configurationFile=" + ChildLogging.configFile(spec.workDir()));
    c.add(OrphanGuard.parentPidOption());
    c.add("-cp");
    c.add(childClassPath());
    c.add(OrphanGuard.class.getName());
    c.add(MAIN_CLASS);
    c.add(spec.role().command());
    c.add("--id");
    c.add(spec.id());
    c.add("--job");
    c.add(spec.jobFile().toString());
    c.add("--bootstrap");
    c.add(spec.bootstrap());
    c.add("--no-provision");
    c.add("--hz-port");
    c.add(Integer.toString(spec.hazelcastPort()));
    for (String member : spec.hazelcastMembers()) {
      c.add("--hz-member");
      c.add(member);
    }
    spec.kafkaProperties().entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            e -> {
              c.add("-X");
              c.add(e.getKey() + "=" + e.getValue());
            });
    c.add("--http-port"); // 0: no HTTP server
    c.add(Integer.toString(spec.httpPort()));
    c.addAll(spec.extraArgs());
    return c;
  }

  /**
   * This JVM's class path, or, when {@value #CLASS_PATH_PROPERTY} is set (e.g. to {@code
   * ../launcher/target/skewer.jar}), that path plus the directory holding {@link OrphanGuard}.
   */
  static String childClassPath() {
    String override = System.getProperty(CLASS_PATH_PROPERTY);
    if (override == null || override.isBlank()) {
      return System.getProperty("java.class.path");
    }
    try {
      Path guard =
          Path.of(OrphanGuard.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return Path.of(override).toAbsolutePath() + File.pathSeparator + guard;
    } catch (URISyntaxException e) {
      throw new IllegalStateException("cannot locate " + OrphanGuard.class, e);
    }
  }

  private String logSinceStart() {
    try {
      byte[] all = Files.readAllBytes(logFile);
      int from = (int) Math.min(all.length, logOffsetAtStart);
      return new String(all, from, all.length - from, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  private boolean healthReady(HttpClient http) {
    try {
      HttpResponse<Void> r =
          http.send(
              HttpRequest.newBuilder(
                      URI.create("http://127.0.0.1:" + spec.httpPort() + "/health/ready"))
                  .timeout(Duration.ofSeconds(2))
                  .build(),
              HttpResponse.BodyHandlers.discarding());
      return r.statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private void signal(UnixSignal signal) {
    if (!isAlive()) {
      throw new IllegalStateException("cannot send SIG" + signal + " to " + this);
    }
    if (!signal.sendTo(process.pid())) {
      throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
    }
    LOG.info("{} sent SIG{}", spec.id(), signal);
  }

  private boolean awaitExit(Duration timeout) {
    try {
      boolean exited = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (exited) {
        LIVE.remove(process);
      }
      return exited;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static void park(Duration d) {
    try {
      Thread.sleep(d.toMillis()); // a polling interval, not synchronisation
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}

package dev.skewer.benchmarks.deployed;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One Skewer process ({@code skewer node} or {@code skewer coordinator} on the product jar) as a
 * child JVM of the benchmark: its output goes to a log file, readiness is its {@code /health/ready}
 * answering 200, CPU comes from {@code /proc}. Every child still running when the benchmark's JVM
 * exits is killed by a shutdown hook.
 *
 * <p>Not thread-safe: one benchmark thread drives it.
 */
final class SkewerChild {

  /**
   * The JVM flags of a Skewer process unless a bench's {@code --jvm-opts} says otherwise: a fixed
   * heap (the benches run on a bare machine, not under a container limit), the collector and the
   * JIT and metaspace thresholds the image and the chart name ({@code -XX:+UseParallelGC
   * -XX:CompileThresholdScaling=3 -XX:MetaspaceSize=128m}, docs/deploy.md).
   */
  static final String DEFAULT_JVM_OPTS =
      "-Xmx3g -XX:+UseParallelGC -XX:CompileThresholdScaling=3 -XX:MetaspaceSize=128m";

  /**
   * The JVM flags a coordinator adds to those, unless a bench's {@code --coordinator-jvm-opts} says
   * otherwise: the chart's {@code coordinator.jvmOptions} ({@code -XX:TieredStopAtLevel=1}, C1
   * only: its C2 compilations cost more CPU than they save; docs/deploy.md).
   */
  static final String DEFAULT_COORDINATOR_JVM_OPTS = "-XX:TieredStopAtLevel=1";

  private static final Set<Process> RUNNING = ConcurrentHashMap.newKeySet();
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

  static {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(() -> RUNNING.forEach(Process::destroyForcibly), "skewer-children-killer"));
  }

  final String name;
  final int httpPort;
  final int hazelcastPort;
  final Path logFile;
  private final List<String> command;
  private final HttpClient http;
  private Process process;
  private long launchedMs;
  private long readyMs = -1;

  /**
   * @param name the process's id ({@code node-1}), also its log file's name
   * @param command the whole command line ({@code java ... -jar skewer.jar node ...})
   * @param httpPort the child's {@code --http-port}
   * @param hazelcastPort the child's {@code --hz-port}
   * @param logDir where {@code <name>.log} is appended
   */
  SkewerChild(
      String name,
      List<String> command,
      int httpPort,
      int hazelcastPort,
      Path logDir,
      HttpClient http) {
    this.name = name;
    this.command = List.copyOf(command);
    this.httpPort = httpPort;
    this.hazelcastPort = hazelcastPort;
    this.logFile = logDir.resolve(name + ".log");
    this.http = http;
  }

  /** The whole command line the child is started with. */
  List<String> command() {
    return command;
  }

  /** Starts the JVM; returns at once. */
  void launch() {
    try {
      Files.createDirectories(logFile.getParent());
      Files.writeString(
          logFile,
          "----- start: " + String.join(" ", command) + "\n",
          StandardCharsets.UTF_8,
          java.nio.file.StandardOpenOption.CREATE,
          java.nio.file.StandardOpenOption.APPEND);
      launchedMs = System.currentTimeMillis();
      readyMs = -1;
      process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
              .start();
      RUNNING.add(process);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name + ": " + command, e);
    }
  }

  /** Asks {@code /health/ready} once unless already ready; true once it has answered 200. */
  boolean pollReady() {
    if (readyMs >= 0) {
      return true;
    }
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/health/ready"))
            .timeout(Duration.ofSeconds(2))
            .build();
    try {
      if (http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
        readyMs = System.currentTimeMillis();
        return true;
      }
    } catch (IOException e) {
      // not listening yet
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return false;
  }

  /**
   * The body of its {@code /metrics} (Prometheus text).
   *
   * @throws IOException when it does not answer, or not with 200
   */
  String metrics() throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/metrics"))
            .timeout(Duration.ofSeconds(10))
            .build();
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException(name + " /metrics answered " + response.statusCode());
    }
    return response.body();
  }

  long launchedMs() {
    return launchedMs;
  }

  /** When {@code /health/ready} first answered 200 since the launch; -1 before. */
  long readyMs() {
    return readyMs;
  }

  boolean isAlive() {
    return process != null && process.isAlive();
  }

  long pid() {
    return process.pid();
  }

  /** CPU seconds used so far; -1 if the process is gone. */
  double cpuSeconds() {
    return ProcessCpu.seconds(process.pid());
  }

  /** SIGKILL, and waits for the exit. */
  void kill() {
    if (process == null) {
      return;
    }
    process.destroyForcibly();
    await(process);
    RUNNING.remove(process);
  }

  /** SIGTERM (a clean stop: drain, checkpoint, commit); SIGKILL after 30 s. */
  void stop() {
    if (process == null) {
      return;
    }
    process.destroy();
    if (!await(process)) {
      System.out.printf("  %s ignored SIGTERM for %s: killing it%n", name, STOP_TIMEOUT);
      process.destroyForcibly();
      await(process);
    }
    RUNNING.remove(process);
  }

  /** SIGTERM to every child first, then waits for each: they stop in parallel. */
  static void stopAll(List<SkewerChild> children) {
    for (SkewerChild c : children) {
      if (c.process != null) {
        c.process.destroy();
      }
    }
    for (SkewerChild c : children) {
      c.stop();
    }
  }

  /** The last {@code lines} lines of the log, for error messages. */
  String tail(int lines) {
    try {
      List<String> all = new ArrayList<>(Files.readAllLines(logFile, StandardCharsets.UTF_8));
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException | UncheckedIOException e) {
      return "(cannot read " + logFile + ": " + e.getMessage() + ")";
    }
  }

  private static boolean await(Process p) {
    try {
      return p.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}

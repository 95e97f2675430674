package dev.skewer.k8s;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A child process started from an exact command line and environment (nothing inherited but {@code
 * PATH}), its stdout and stderr appended to a log file. {@link #kill} is SIGKILL, {@link #stop}
 * SIGTERM with a deadline, as a kubelet does. Every started process is registered so that a JVM
 * shutdown hook kills leftovers.
 *
 * <p>Not thread-safe: one test thread drives it.
 */
final class HostProcess implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(HostProcess.class);
  private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly), "host-reaper"));
  }

  private final String name;
  private final List<String> command;
  private final Map<String, String> environment;
  private final Path logFile;
  private Process process;
  private long logOffsetAtStart;

  private HostProcess(String name, List<String> command, Map<String, String> env, Path logFile) {
    this.name = name;
    this.command = List.copyOf(command);
    this.environment = Map.copyOf(env);
    this.logFile = logFile;
  }

  /** Starts {@code command} with exactly {@code environment} (plus {@code PATH}). */
  static HostProcess start(
      String name, List<String> command, Map<String, String> environment, Path logFile) {
    HostProcess p = new HostProcess(name, command, environment, logFile);
    p.start();
    return p;
  }

  void start() {
    try {
      Files.createDirectories(logFile.getParent());
      Files.writeString(
          logFile,
          "----- " + Instant.now() + " start: " + shown(command) + " env " + environment + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
      logOffsetAtStart = Files.size(logFile);
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
      String path = builder.environment().get("PATH");
      builder.environment().clear();
      builder.environment().put("PATH", path == null ? "/usr/sbin:/usr/bin:/sbin:/bin" : path);
      builder.environment().putAll(environment);
      process = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name + ": " + command, e);
    }
    LIVE.add(process);
    LOG.info("{} started (pid {}), log {}", name, process.pid(), logFile);
  }

  /** The command line with a class path shortened to its file names (for the log). */
  static String shown(List<String> command) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < command.size(); i++) {
      String arg = command.get(i);
      if (i > 0 && (command.get(i - 1).equals("-cp") || command.get(i - 1).equals("-classpath"))) {
        arg =
            java.util.Arrays.stream(arg.split(java.io.File.pathSeparator))
                .map(p -> Path.of(p).getFileName().toString())
                .collect(java.util.stream.Collectors.joining(java.io.File.pathSeparator));
      }
      sb.append(i == 0 ? "" : " ").append(arg);
    }
    return sb.toString();
  }

  String name() {
    return name;
  }

  List<String> command() {
    return command;
  }

  Map<String, String> environment() {
    return environment;
  }

  Path logFile() {
    return logFile;
  }

  boolean isAlive() {
    return process != null && process.isAlive();
  }

  /** The exit status; IllegalStateException while running. */
  int exitValue() {
    return process.exitValue();
  }

  /** Waits up to {@code timeout} for the process to exit; whether it did. */
  boolean waitFor(Duration timeout) {
    return !isAlive() || awaitExit(timeout);
  }

  /** SIGKILL and wait. */
  void kill() {
    if (isAlive()) {
      process.destroyForcibly();
      awaitExit(Duration.ofSeconds(30));
    }
  }

  /**
   * SIGTERM, then SIGKILL after {@code grace} (a pod's terminationGracePeriodSeconds); returns
   * whether the process exited by itself within the grace period.
   */
  boolean stop(Duration grace) {
    if (!isAlive()) {
      return true;
    }
    process.destroy();
    if (awaitExit(grace)) {
      return true;
    }
    LOG.warn("{} still running {} after SIGTERM: killing", name, grace);
    kill();
    return false;
  }

  @Override
  public void close() {
    kill();
    if (process != null) {
      LIVE.remove(process);
    }
  }

  /** The log written since the last start. */
  String logSinceStart() {
    try {
      byte[] all = Files.readAllBytes(logFile);
      int from = (int) Math.min(all.length, logOffsetAtStart);
      return new String(all, from, all.length - from, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  /** The last {@code lines} lines of the log, for failure messages. */
  String tail(int lines) {
    List<String> all = logSinceStart().lines().toList();
    return "\n" + String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
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

  /** Kills every process of a list when closed (SIGKILLs sent before waiting for any). */
  record Group(List<HostProcess> processes) implements AutoCloseable {
    @Override
    public void close() {
      processes.forEach(
          p -> {
            if (p.isAlive()) {
              p.process.destroyForcibly();
            }
          });
      processes.forEach(HostProcess::close);
    }
  }

  @Override
  public String toString() {
    return name + (isAlive() ? " (pid " + process.pid() + ")" : " (not running)");
  }
}

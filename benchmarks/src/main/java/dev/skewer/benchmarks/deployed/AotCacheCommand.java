package dev.skewer.benchmarks.deployed;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code skewer aot-cache}: writes the AOT cache the image maps ({@code -XX:AOTCache}, Java 25 and
 * later). The cache holds the classes a training run loaded, linked, with the method profiles of
 * that run, so a process that maps it skips most of its class loading and its JIT starts from those
 * profiles. The training run is one W1 run in the deployed shape ({@link DeployedBench}: a broker
 * in its own JVM, 2 nodes and a coordinator of the product jar, results checked against the
 * reference); its first node writes the cache as it stops. One cache serves every role: a
 * coordinator mapping a node's cache spent about as little as one mapping its own
 * (docs/benchmarks.md). A cache is valid only for the JVM that wrote it and the jar at the path it
 * was written with, so the Dockerfile runs this in the image, with the image's JVM and jar path.
 */
@Command(
    name = "aot-cache",
    mixinStandardHelpOptions = true,
    description = {
      "Write the AOT cache of the product jar (Java 25+, -XX:AOTCache): one W1 run in the deployed"
          + " shape (a broker, 2 nodes, 1 coordinator), whose first node writes the cache as it"
          + " stops; then check that the jar starts with it.",
      "Run it with the JVM that will map the cache, on the jar at the path it will run from (the"
          + " Dockerfile does, in the image)."
    })
public final class AotCacheCommand implements Callable<Integer> {

  /** The JVM flags of the training run's processes: the image's, with a heap for a build. */
  static final String DEFAULT_JVM_OPTS =
      "-Xmx1g -XX:+UseParallelGC -XX:CompileThresholdScaling=3 -XX:MetaspaceSize=128m";

  /**
   * The JVM flags a cache is written with, before {@code --jvm-opts} (where a contrary flag wins),
   * and which every process that maps it must give too: Java 25's compact object headers (8 bytes
   * of header per object instead of 12; 6 % less CPU per event over a 20,000,000-event W1 run,
   * docs/benchmarks.md). The JVM maps a cache only into a JVM of the same object layout; without
   * the flag it logs {@code [error][aot]} lines and runs without the cache. The Dockerfile's
   * entrypoint gives it beside {@code -XX:AOTCache}.
   */
  public static final List<String> CACHE_FLAGS = List.of("-XX:+UseCompactObjectHeaders");

  /** The process whose cache is kept: a node (the roles that take the events). */
  static final String TRAINED_PROCESS = "node-1";

  /** The first Java release with {@code -XX:AOTCacheOutput}. */
  static final int AOT_CACHE_RELEASE = 25;

  @Option(
      names = "--jar",
      required = true,
      description = "The product jar, at the path the processes will run it from.")
  Path jar;

  @Option(names = "--out", required = true, description = "The cache file to write.")
  Path out;

  @Option(
      names = "--events",
      defaultValue = "5000000",
      description =
          "W1 events of the training run (a shorter run profiles less: a cache from 500,000 took"
              + " 8 %% off the CPU per event, caches from 5,000,000 8-25 %%, median 17 %%;"
              + " docs/benchmarks.md). Default: ${DEFAULT-VALUE}.")
  long events;

  @Option(
      names = "--jvm-opts",
      defaultValue = DEFAULT_JVM_OPTS,
      description =
          "JVM flags of the training run's processes, space-separated (the cache is written with"
              + " them, after -XX:+UseCompactObjectHeaders, which every process mapping it must"
              + " give too; keep the collector the processes will run with). Default:"
              + " '${DEFAULT-VALUE}'.")
  String jvmOpts;

  @Option(
      names = "--work-dir",
      description =
          "The training run's broker data, logs and caches. Default: a new temporary directory,"
              + " deleted once the cache is written (kept, with the logs, when it is not).")
  Path workDir;

  @Override
  public Integer call() throws Exception {
    int release = Runtime.version().feature();
    if (release < AOT_CACHE_RELEASE) {
      System.err.printf(
          "aot-cache needs Java %d or later (this is Java %d): run it with the JVM that will map"
              + " the cache (a cache is valid only for the JVM that wrote it).%n",
          AOT_CACHE_RELEASE, release);
      return 2;
    }
    if (!BenchPaths.productJarExists(jar)) {
      return 2;
    }
    Path target = out.toAbsolutePath();
    if (target.getParent() != null && !Files.isDirectory(target.getParent())) {
      System.err.printf("The directory of --out, %s, does not exist.%n", target.getParent());
      return 2;
    }
    boolean temporary = workDir == null;
    Path work = temporary ? Files.createTempDirectory("skewer-aot-") : workDir.toAbsolutePath();
    Path caches = Files.createDirectories(work.resolve("aot"));
    long t0 = System.nanoTime();
    System.out.printf(
        "Training run: %,d W1 events through 2 nodes and a coordinator of %s; %s writes the"
            + " cache as it stops.%n",
        events, jar, TRAINED_PROCESS);
    boolean written = false;
    try {
      int rc =
          new CommandLine(new DeployedBench())
              .execute(trainingArguments(jar, events, jvmOpts, work, caches));
      if (rc != 0) {
        System.err.printf(
            "The training run failed (exit %d; its output is above, its logs in %s).%n", rc, work);
        return 1;
      }
      Path trained = caches.resolve(TRAINED_PROCESS + ".aot");
      if (!Files.isRegularFile(trained) || Files.size(trained) == 0) {
        System.err.printf(
            "%s wrote no cache at %s (a process writes it only when it stops cleanly; its log is"
                + " in %s).%n",
            TRAINED_PROCESS, trained, work);
        return 1;
      }
      String check = checkStarts(trained);
      if (check != null) {
        System.err.println(check);
        return 1;
      }
      Files.move(trained, target, StandardCopyOption.REPLACE_EXISTING);
      written = true;
      System.out.printf(
          "Wrote %s (%,d MB) in %.0f s; the jar starts with it (-XX:AOTMode=on).%n",
          target, Files.size(target) >> 20, (System.nanoTime() - t0) / 1e9);
      return 0;
    } finally {
      if (temporary && written) {
        BenchPaths.deleteRecursively(work);
      }
    }
  }

  /** The {@code bench deployed} arguments of the training run. */
  static String[] trainingArguments(Path jar, long events, String jvmOpts, Path work, Path caches) {
    return new String[] {
      "--events=" + events,
      "--runs=1",
      "--no-cds", // -XX:AOTCacheOutput cannot be combined with a CDS archive
      "--jar=" + jar.toAbsolutePath(),
      "--work-dir=" + work,
      "--jvm-opts="
          + String.join(" ", CACHE_FLAGS)
          + " "
          + jvmOpts
          + " -XX:AOTCacheOutput="
          + caches.resolve("{name}.aot")
    };
  }

  /**
   * Starts the jar with the cache and {@code -XX:AOTMode=on} (a cache the JVM cannot map is then an
   * error, not a warning): null when it starts, else what went wrong.
   */
  private String checkStarts(Path cache) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(CACHE_FLAGS);
    for (String flag : jvmOpts.trim().split("\\s+")) {
      if (!flag.isEmpty()) {
        command.add(flag);
      }
    }
    command.addAll(
        List.of(
            "-XX:AOTCache=" + cache,
            "-XX:AOTMode=on",
            "-jar",
            jar.toAbsolutePath().toString(),
            "--version"));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    byte[] output = p.getInputStream().readAllBytes();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return "The jar did not start with the cache within 60 s: " + String.join(" ", command);
    }
    if (p.exitValue() != 0) {
      return "The jar does not start with the cache ("
          + String.join(" ", command)
          + " exited "
          + p.exitValue()
          + "):\n"
          + new String(output, StandardCharsets.UTF_8);
    }
    return null;
  }
}

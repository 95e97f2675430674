package dev.skewer.benchmarks.deployed;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

/**
 * The class-data-sharing archive of README's Java 17 recipe ({@code java -Xshare:dump}; the image
 * maps an AOT cache instead, {@link AotCacheCommand}), written for the benches the same way: the
 * classes that {@code launcher/cds/skewer.classlist} names, loaded from the product jar and dumped
 * by the JVM that will map it. A Skewer process started with {@code
 * -XX:SharedArchiveFile=<archive>} maps them instead of loading, verifying and linking each one
 * (README, "Start-up").
 */
final class ClassDataArchive {

  /** The class list the archive is dumped from, relative to the repository. */
  static final String DEFAULT_CLASS_LIST = "launcher/cds/skewer.classlist";

  private ClassDataArchive() {}

  /**
   * Dumps the archive of {@code classList}'s classes from {@code jar} into {@code dir} and returns
   * the JVM flag that maps it.
   *
   * @throws IllegalStateException when the class list is missing or the dump fails (its output is
   *     in {@code dir/cds-dump.log})
   */
  static String dump(Path jar, Path classList, Path dir) {
    if (!Files.isRegularFile(classList)) {
      throw new IllegalStateException(
          "no class list at "
              + classList.toAbsolutePath()
              + " (run from the repository's root, or pass --class-list; --no-cds runs without"
              + " an archive)");
    }
    try {
      Files.createDirectories(dir);
      Path archive = dir.resolve("skewer.jsa").toAbsolutePath();
      Path log = dir.resolve("cds-dump.log");
      List<String> command =
          List.of(
              Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
              "-Xshare:dump",
              "-XX:+UseG1GC",
              "-XX:SharedClassListFile=" + classList.toAbsolutePath(),
              "-XX:SharedArchiveFile=" + archive,
              "-cp",
              jar.toAbsolutePath().toString());
      System.out.printf("Dumping the class-data-sharing archive (%s) ...%n", archive);
      long t0 = System.nanoTime();
      Process p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      int exit = p.waitFor();
      if (exit != 0 || !Files.isRegularFile(archive)) {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        throw new IllegalStateException(
            "the CDS dump exited "
                + exit
                + ": "
                + String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()))
                + " (whole output: "
                + log
                + ")");
      }
      System.out.printf(
          "  %,d MB in %.1f s%n", Files.size(archive) >> 20, (System.nanoTime() - t0) / 1e9);
      return "-XX:SharedArchiveFile=" + archive;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot dump the CDS archive into " + dir, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while dumping the CDS archive", e);
    }
  }
}

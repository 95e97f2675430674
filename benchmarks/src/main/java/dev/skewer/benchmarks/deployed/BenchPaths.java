package dev.skewer.benchmarks.deployed;

import dev.skewer.testkit.files.Directories;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/** The paths the deployed-shape benches share: the product jar they run and their directories. */
public final class BenchPaths {

  private BenchPaths() {}

  /** Whether {@code jar} exists; if not, says how to build it (on standard error). */
  static boolean productJarExists(Path jar) {
    if (Files.isRegularFile(jar)) {
      return true;
    }
    System.err.printf(
        "The product jar %s does not exist: build it with"
            + " ./mvnw -B -q install -pl launcher -am -DskipTests (or pass --jar).%n",
        jar.toAbsolutePath());
    return false;
  }

  /** {@code given}, or {@code target/<bench>/<yyyyMMdd-HHmmss>} when null: absolute and created. */
  public static Path workDir(Path given, String bench) throws IOException {
    Path dir =
        given != null
            ? given
            : Path.of(
                "target",
                bench,
                LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
    return created(dir);
  }

  /** {@code dir} absolute and created, or null when null (no JFR recordings). */
  static Path optionalDir(Path dir) throws IOException {
    return dir == null ? null : created(dir);
  }

  private static Path created(Path dir) throws IOException {
    Path absolute = dir.toAbsolutePath();
    Files.createDirectories(absolute);
    return absolute;
  }

  /** Deletes {@code dir} and everything under it; a failure is printed, not thrown. */
  public static void deleteRecursively(Path dir) {
    try {
      Directories.deleteRecursively(dir);
    } catch (IOException e) {
      System.out.println("(could not delete " + dir + ": " + e.getMessage() + ")");
    }
  }
}

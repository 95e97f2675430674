package dev.skewer.testkit.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Directory trees the tests, benches and the embedded broker make and remove. */
public final class Directories {

  private Directories() {}

  /**
   * Deletes {@code dir} and everything under it, deepest first; nothing when it does not exist.
   * Files that cannot be deleted stay; the caller decides how to report a failed walk.
   *
   * @throws IOException when the tree cannot be walked
   */
  public static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}

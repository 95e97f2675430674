package dev.skewer.k8s;

import java.nio.file.Files;
import java.nio.file.Path;

/** Paths in the repository, found from the module's working directory. */
final class Repo {

  private Repo() {}

  /** The repository root (the directory holding {@code k8s/skewer/Chart.yaml}). */
  static Path root() {
    Path dir = Path.of("").toAbsolutePath();
    for (Path p = dir; p != null; p = p.getParent()) {
      if (Files.exists(p.resolve("k8s/skewer/Chart.yaml"))) {
        return p;
      }
    }
    throw new IllegalStateException("no k8s/skewer/Chart.yaml above " + dir);
  }

  static Path chart() {
    return root().resolve("k8s/skewer");
  }

  /** A values file of the checks ({@code k8s-checks/src/test/resources/values/<name>.yaml}). */
  static Path valueSet(String name) {
    Path file = root().resolve("k8s-checks/src/test/resources/values/" + name + ".yaml");
    if (!Files.exists(file)) {
      throw new IllegalArgumentException("no value set " + file);
    }
    return file;
  }

  /** The product jar {@code ./mvnw package} builds; fails with a hint when it is missing. */
  static Path productJar() {
    Path jar = root().resolve("launcher/target/skewer.jar");
    if (!Files.exists(jar)) {
      throw new IllegalStateException(
          jar + " is missing: build it first (./mvnw -B package -DskipTests -pl launcher -am)");
    }
    return jar;
  }
}

package dev.skewer.k8s;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * The image's files on this machine, without a Docker engine: what the Dockerfile copies is the
 * repository's file it copies from (the product jar), what its {@code RUN} binds in is the
 * repository's file it binds (the development jar), and the AOT cache that {@code RUN} writes is
 * written here by that same command, its image paths replaced by these local ones, run by a local
 * JVM of the image's Java release ({@link #java}), into {@code k8s-checks/target/local-image/}. A
 * cache written there is reused while it is newer than the files its step reads (the other test JVM
 * of a build finds it).
 */
final class LocalImage {

  /** The flag with which the entrypoint maps the cache. */
  static final String CACHE_FLAG = "-XX:AOTCache=";

  /**
   * The entrypoint's flag that the cache is written with and must be mapped with (Java 25's compact
   * object headers); a JVM of an older release refuses it.
   */
  static final String COMPACT_HEADERS = "-XX:+UseCompactObjectHeaders";

  /** The first release where {@link #COMPACT_HEADERS} is a product flag. */
  private static final int COMPACT_HEADERS_SINCE = 25;

  /**
   * The image's option that keeps Java 23+ from warning when Hazelcast uses {@code
   * sun.misc.Unsafe}; a JVM of an older release refuses it.
   */
  static final String UNSAFE_ALLOWED = "--sun-misc-unsafe-memory-access=allow";

  /** The first release that knows {@link #UNSAFE_ALLOWED}. */
  private static final int UNSAFE_ALLOWED_SINCE = 23;

  /**
   * The image's {@code JDK_JAVA_OPTIONS} for a JVM of {@code release}: as they are, less the
   * options that release does not know (a pod run by this test's JVM where no JVM of the image's
   * release is installed).
   */
  static String javaOptionsFor(String options, int release) {
    return String.join(
        " ", Stream.of(options.split(" ")).filter(o -> knownTo(o, release)).toList());
  }

  /** Whether a JVM of {@code release} knows the image's option {@code option}. */
  static boolean knownTo(String option, int release) {
    return switch (option) {
      case UNSAFE_ALLOWED -> release >= UNSAFE_ALLOWED_SINCE;
      case COMPACT_HEADERS -> release >= COMPACT_HEADERS_SINCE;
      default -> true;
    };
  }

  /** A JDK or JRE of the image's release, when this machine's is elsewhere. */
  static final String JAVA_HOME_VARIABLE = "SKEWER_IMAGE_JAVA_HOME";

  /** The training run's events here (the Dockerfile's {@code --events} value is replaced). */
  static final int TRAINING_EVENTS = 300_000;

  private static final Pattern RELEASE = Pattern.compile("^[^:]+:(\\d+)\\D");

  private static Map<String, Path> files;

  private LocalImage() {}

  /** {@code arg} with every image path in it (whole, or after a flag's {@code =}) made local. */
  static String local(Dockerfile image, String arg) {
    return local(arg, files(image));
  }

  private static String local(String arg, Map<String, Path> paths) {
    for (Map.Entry<String, Path> f : paths.entrySet()) {
      if (arg.equals(f.getKey())) {
        return f.getValue().toString();
      }
      if (arg.endsWith("=" + f.getKey())) {
        return arg.substring(0, arg.length() - f.getKey().length()) + f.getValue();
      }
    }
    return arg;
  }

  /**
   * The cache the image's entrypoint maps, as its {@code RUN} step writes it; the test is skipped
   * (an assumption) when this machine has no JVM of the image's release.
   */
  static Path cache(Dockerfile image) {
    Assumptions.assumeTrue(
        java(image).isPresent(),
        () ->
            "no Java "
                + release(image)
                + " here to write and map the image's AOT cache with (set "
                + JAVA_HOME_VARIABLE
                + ")");
    return files(image).get(cachePath(image));
  }

  /** The image path of the cache: the value of the entrypoint's {@value #CACHE_FLAG}. */
  static String cachePath(Dockerfile image) {
    return image.execForm("ENTRYPOINT").stream()
        .filter(a -> a.startsWith(CACHE_FLAG))
        .map(a -> a.substring(CACHE_FLAG.length()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("the entrypoint maps no cache (" + CACHE_FLAG + ")"));
  }

  /** The Java feature release of the image's base ({@code eclipse-temurin:25-jre} → 25). */
  static int release(Dockerfile image) {
    Matcher m = RELEASE.matcher(image.last("FROM").arguments());
    if (!m.find()) {
      throw new AssertionError("no Java release in the base image's tag: " + image.last("FROM"));
    }
    return Integer.parseInt(m.group(1));
  }

  /**
   * The {@code java} of a local JVM of the image's release: {@value #JAVA_HOME_VARIABLE}'s, this
   * test's own when it is that release, else one under {@code /usr/lib/jvm}; empty when there is
   * none.
   */
  static Optional<Path> java(Dockerfile image) {
    int release = release(image);
    List<Path> homes = new ArrayList<>();
    String configured = System.getenv(JAVA_HOME_VARIABLE);
    if (configured != null && !configured.isBlank()) {
      homes.add(Path.of(configured));
    }
    homes.add(Path.of(System.getProperty("java.home")));
    Path jvms = Path.of("/usr/lib/jvm");
    if (Files.isDirectory(jvms)) {
      try (Stream<Path> installed = Files.list(jvms)) {
        installed.sorted().forEach(homes::add);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return homes.stream()
        .filter(home -> releaseOf(home) == release)
        .map(home -> home.resolve("bin/java"))
        .filter(Files::isExecutable)
        .findFirst();
  }

  /** The feature release a JDK's or JRE's {@code release} file names, or -1. */
  private static int releaseOf(Path home) {
    Path file = home.resolve("release");
    if (!Files.isRegularFile(file)) {
      return -1;
    }
    try {
      Matcher m =
          Pattern.compile("JAVA_VERSION=\"(\\d+)")
              .matcher(Files.readString(file, StandardCharsets.UTF_8));
      return m.find() ? Integer.parseInt(m.group(1)) : -1;
    } catch (IOException e) {
      return -1;
    }
  }

  /** Image path → local file: each COPY's destination, the RUN's bind mount, the cache. */
  private static synchronized Map<String, Path> files(Dockerfile image) {
    if (files != null) {
      return files;
    }
    Map<String, Path> out = new LinkedHashMap<>();
    for (Dockerfile.Instruction copy : image.all("COPY")) {
      String[] parts = image.expand(copy.arguments()).split("\\s+");
      if (parts.length != 2) {
        throw new AssertionError("COPY of one source to one destination expected: " + copy);
      }
      out.put(parts[1], Repo.root().resolve(parts[0]));
    }
    Map<String, String> mount = image.mount("RUN");
    List<Path> inputs = new ArrayList<>(out.values());
    if (!mount.isEmpty()) {
      Path source = Repo.root().resolve(mount.get("source"));
      out.put(mount.get("target"), source);
      inputs.add(source);
    }
    Path dir = Repo.root().resolve("k8s-checks/target/local-image");
    Path cache = dir.resolve(Path.of(cachePath(image)).getFileName());
    out.put(cachePath(image), cache);
    Optional<Path> java = java(image);
    if (java.isPresent() && !upToDate(cache, inputs)) {
      write(image, java.get(), out, dir, cache);
    }
    files = out;
    return out;
  }

  private static boolean upToDate(Path cache, List<Path> inputs) {
    try {
      if (!Files.isRegularFile(cache)) {
        return false;
      }
      for (Path input : inputs) {
        if (!Files.isRegularFile(input)
            || Files.getLastModifiedTime(input).compareTo(Files.getLastModifiedTime(cache)) > 0) {
          return false;
        }
      }
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Runs the Dockerfile's last {@code RUN} (the cache's training) with its paths made local. */
  private static void write(
      Dockerfile image, Path java, Map<String, Path> paths, Path dir, Path cache) {
    List<String> run = image.execForm("RUN");
    if (!run.get(0).equals("java") || !run.contains("aot-cache")) {
      throw new AssertionError("the Dockerfile's last RUN does not write the AOT cache: " + run);
    }
    for (Map.Entry<String, Path> input : paths.entrySet()) {
      if (!input.getKey().equals(cachePath(image)) && !Files.isRegularFile(input.getValue())) {
        throw new AssertionError(
            input.getValue()
                + " (the image's "
                + input.getKey()
                + ") does not exist: build it first (./mvnw -B install -DskipTests)");
      }
    }
    List<String> command = new ArrayList<>();
    command.add(java.toString());
    for (String arg : run.subList(1, run.size())) {
      command.add(local(arg, paths));
    }
    int events = command.indexOf("--events");
    if (events < 0) {
      throw new AssertionError("the training step names no --events: " + run);
    }
    command.set(events + 1, Integer.toString(TRAINING_EVENTS));
    try {
      Files.createDirectories(dir);
      Files.deleteIfExists(cache);
      Path log = dir.resolve("aot-cache.log");
      Process p =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      if (!p.waitFor(10, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new AssertionError("the AOT cache's training did not end within 10 min: " + command);
      }
      if (p.exitValue() != 0 || !Files.isRegularFile(cache)) {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        throw new AssertionError(
            "the AOT cache's training exited "
                + p.exitValue()
                + ": "
                + command
                + "\n"
                + String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size())));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}

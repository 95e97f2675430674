package dev.skewer.k8s;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The image's files on this machine, without a Docker engine: what the Dockerfile copies is the
 * repository's file it copies from (the product jar, the class list), and the class-data-sharing
 * archive its {@code RUN} step dumps is dumped here by that same command, its image paths replaced
 * by these local ones, into {@code k8s-checks/target/local-image/} (once per test JVM).
 */
final class LocalImage {

  /** The flag with which the entrypoint maps the archive. */
  static final String ARCHIVE_FLAG = "-XX:SharedArchiveFile=";

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

  /** The archive the image's entrypoint maps, as its dump step writes it. */
  static Path archive(Dockerfile image) {
    return files(image).get(archivePath(image));
  }

  /** The image path of the archive: the value of the entrypoint's {@value #ARCHIVE_FLAG}. */
  static String archivePath(Dockerfile image) {
    return image.execForm("ENTRYPOINT").stream()
        .filter(a -> a.startsWith(ARCHIVE_FLAG))
        .map(a -> a.substring(ARCHIVE_FLAG.length()))
        .findFirst()
        .orElseThrow(
            () -> new AssertionError("the entrypoint maps no archive (" + ARCHIVE_FLAG + ")"));
  }

  /** Image path → local file: each COPY's destination, then the dumped archive. */
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
    Path dir = Repo.root().resolve("k8s-checks/target/local-image");
    Path archive = dir.resolve(Path.of(archivePath(image)).getFileName());
    out.put(archivePath(image), archive);
    dump(image, out, dir, archive);
    files = out;
    return out;
  }

  /** Runs the Dockerfile's last {@code RUN} (the dump) with the image's paths made local. */
  private static void dump(Dockerfile image, Map<String, Path> paths, Path dir, Path archive) {
    List<String> run = image.execForm("RUN");
    if (!run.get(0).equals("java") || !run.contains("-Xshare:dump")) {
      throw new AssertionError("the Dockerfile's last RUN is not the CDS dump: " + run);
    }
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    for (String arg : run.subList(1, run.size())) {
      command.add(local(arg, paths));
    }
    try {
      Files.createDirectories(dir);
      Files.deleteIfExists(archive);
      Path log = dir.resolve("dump.log");
      Process p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      if (!p.waitFor(180, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("the CDS dump did not end within 180 s: " + command);
      }
      if (p.exitValue() != 0 || !Files.isRegularFile(archive)) {
        throw new AssertionError(
            "the CDS dump exited "
                + p.exitValue()
                + ": "
                + command
                + "\n"
                + Files.readString(log, StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}

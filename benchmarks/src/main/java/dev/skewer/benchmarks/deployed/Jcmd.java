package dev.skewer.benchmarks.deployed;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** {@code jcmd <pid> <command...>} of this JDK, for JFR recordings and thread dumps of children. */
final class Jcmd {

  private static volatile boolean missingReported;

  private Jcmd() {}

  /** Runs it and returns its output; null (the reason printed) if it fails. */
  static String run(long pid, String... args) {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    if (!Files.isExecutable(jcmd)) {
      // a JRE (the image's build runs aot-cache on one): say so once, not per process and run
      if (!missingReported) {
        missingReported = true;
        System.out.println("  (no " + jcmd + " in this runtime: no per-thread CPU, no JFR)");
      }
      return null;
    }
    List<String> command = new ArrayList<>(List.of(jcmd.toString(), Long.toString(pid)));
    command.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      byte[] out;
      try (InputStream in = p.getInputStream()) {
        out = in.readAllBytes();
      }
      String text = new String(out, StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        System.out.println("  (" + String.join(" ", command) + " failed: " + text.strip() + ")");
        return null;
      }
      return text;
    } catch (IOException e) {
      System.out.println("  (cannot run " + jcmd + ": " + e.getMessage() + ")");
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }
}

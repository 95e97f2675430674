package dev.skewer.launcher.cli;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The example job files shipped inside the launcher jar ({@code examples/*.yaml}). */
public final class JobResources {
  private JobResources() {}

  /** Loads {@code examples/<name>} with SKEWER_* environment overrides applied. */
  public static JobSpec load(String name) {
    try (InputStream in = JobResources.class.getResourceAsStream("/examples/" + name)) {
      if (in == null) {
        throw new IllegalStateException("examples/" + name + " is missing from the launcher jar");
      }
      return JobSpecLoader.parse(
          new String(in.readAllBytes(), StandardCharsets.UTF_8), System.getenv());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

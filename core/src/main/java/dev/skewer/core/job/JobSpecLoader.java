package dev.skewer.core.job;

import java.nio.file.Path;
import java.util.Map;

/** Loads job files. (API first; body follows.) */
public final class JobSpecLoader {
  private JobSpecLoader() {}

  public static JobSpec load(Path yamlFile, Map<String, String> env) {
    throw new UnsupportedOperationException("not yet");
  }

  public static JobSpec parse(String yaml, Map<String, String> env) {
    throw new UnsupportedOperationException("not yet");
  }
}

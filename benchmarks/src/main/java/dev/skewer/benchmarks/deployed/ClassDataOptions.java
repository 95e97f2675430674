package dev.skewer.benchmarks.deployed;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The benches' {@code --cds} and {@code --class-list} options: whether the Skewer processes map a
 * class-data-sharing archive as the image's do ({@link ClassDataArchive}).
 */
final class ClassDataOptions {

  @Option(
      names = "--cds",
      negatable = true,
      defaultValue = "true",
      fallbackValue = "true", // with the default true, --cds still means on and --no-cds off
      description =
          "Map a class-data-sharing archive in every Skewer process, as the image does: dumped"
              + " once per invocation from --class-list and the jar (--no-cds: none; the JVM's"
              + " own archive of JDK classes only). Default: on.")
  boolean cds;

  @Option(
      names = "--class-list",
      defaultValue = ClassDataArchive.DEFAULT_CLASS_LIST,
      description = "The classes the archive holds. Default: ${DEFAULT-VALUE}.")
  Path classList;

  private String flag; // the archive's flag, once dumped

  /**
   * {@code jvmOptions} with the archive's flag added when {@code --cds} is on (the archive is
   * dumped into {@code workDir} on the first call).
   */
  List<String> withArchive(List<String> jvmOptions, Path jar, Path workDir) {
    if (!cds) {
      return jvmOptions;
    }
    if (flag == null) {
      flag = ClassDataArchive.dump(jar, classList, workDir.resolve("cds"));
    }
    List<String> out = new ArrayList<>(jvmOptions);
    out.add(flag);
    return out;
  }

  /** What the processes map, for the bench's report. */
  String describe() {
    return cds ? "CDS archive of " + classList : "no CDS archive";
  }
}

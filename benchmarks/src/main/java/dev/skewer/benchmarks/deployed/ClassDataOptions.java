package dev.skewer.benchmarks.deployed;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The benches' {@code --cds}, {@code --class-list} and {@code --aot-cache} options: whether the
 * Skewer processes map a class-data-sharing archive as a {@code java -jar} run on Java 17 does
 * ({@link ClassDataArchive}), or an AOT cache as the image's do ({@link AotCacheCommand}).
 */
final class ClassDataOptions {

  @Option(
      names = "--cds",
      negatable = true,
      defaultValue = "true",
      fallbackValue = "true", // with the default true, --cds still means on and --no-cds off
      description =
          "Map a class-data-sharing archive in every Skewer process, as README's Java 17 recipe"
              + " does: dumped once per invocation from --class-list and the jar (--no-cds: none;"
              + " the JVM's own archive of JDK classes only). Default: on, unless --aot-cache.")
  boolean cds;

  @Option(
      names = "--class-list",
      defaultValue = ClassDataArchive.DEFAULT_CLASS_LIST,
      description = "The classes the archive holds. Default: ${DEFAULT-VALUE}.")
  Path classList;

  @Option(
      names = "--aot-cache",
      paramLabel = "FILE",
      description =
          "Map this AOT cache in every Skewer process instead of a CDS archive, as the image does"
              + " (Java 25+; write it with 'skewer aot-cache' by this JVM, for --jar), with the"
              + " flag aot-cache writes it with (-XX:+UseCompactObjectHeaders, before --jvm-opts,"
              + " where a contrary flag wins). With --jfr the"
              + " processes start JFR on their command line and run without it.")
  Path aotCache;

  private String flag; // the archive's flag, once dumped

  /**
   * {@code jvmOptions} with the archive's flag added when {@code --cds} is on (the archive is
   * dumped into {@code workDir} on the first call), or the AOT cache's flags with {@code
   * --aot-cache} ({@link AotCacheCommand#CACHE_FLAGS} beside {@code -XX:AOTCache}).
   */
  List<String> withArchive(List<String> jvmOptions, Path jar, Path workDir) {
    if (aotCache != null) {
      List<String> out = new ArrayList<>(AotCacheCommand.CACHE_FLAGS); // --jvm-opts may override
      out.addAll(jvmOptions);
      out.add(aotCacheFlag(aotCache));
      return out;
    }
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

  /**
   * Whether what the processes are to map can be mapped, checked before a bench starts anything:
   * true, or false with the reason printed on standard error.
   */
  boolean usable() {
    if (aotCache != null) {
      try {
        aotCacheFlag(aotCache);
      } catch (IllegalArgumentException e) {
        System.err.println(e.getMessage());
        return false;
      }
    }
    return true;
  }

  /** What the processes map, for the bench's report. */
  String describe() {
    if (aotCache != null) {
      return "AOT cache " + aotCache;
    }
    return cds ? "CDS archive of " + classList : "no CDS archive";
  }

  /**
   * The flag that maps {@code cache}, or IllegalArgumentException when this JVM cannot (the
   * processes run on it) or the file is missing.
   */
  static String aotCacheFlag(Path cache) {
    int release = Runtime.version().feature();
    if (release < AotCacheCommand.AOT_CACHE_RELEASE) {
      throw new IllegalArgumentException(
          "--aot-cache needs Java "
              + AotCacheCommand.AOT_CACHE_RELEASE
              + " or later: the processes run on this JVM, Java "
              + release);
    }
    if (!Files.isRegularFile(cache)) {
      throw new IllegalArgumentException(
          "no AOT cache at " + cache.toAbsolutePath() + " (write it with 'skewer aot-cache')");
    }
    return "-XX:AOTCache=" + cache.toAbsolutePath();
  }
}

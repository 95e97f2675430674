package dev.skewer.benchmarks.deployed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The training run's arguments and the refusals of {@code aot-cache} and {@code --aot-cache}; the
 * whole command runs in the k8s checks (the Dockerfile's training step, on a Java 25).
 */
class AotCacheCommandTest {

  @Test
  void shouldTrainWithOneDeployedRunWhoseProcessesWriteACacheEachAndNoArchive(@TempDir Path dir) {
    // given
    Path jar = dir.resolve("skewer.jar");
    Path caches = dir.resolve("aot");

    // when the training run's arguments are parsed as bench deployed parses them
    DeployedBench bench = new DeployedBench();
    new CommandLine(bench)
        .parseArgs(
            AotCacheCommand.trainingArguments(
                jar, 500_000, AotCacheCommand.DEFAULT_JVM_OPTS, dir, caches));

    // then one run of that many events, no CDS archive (the JVM refuses it beside
    // -XX:AOTCacheOutput), every process writing its cache into the caches' directory
    assertThat(bench.events).isEqualTo(500_000);
    assertThat(bench.runs).isEqualTo(1);
    assertThat(bench.classData.cds).isFalse();
    assertThat(bench.classData.aotCache).isNull();
    assertThat(bench.jar).isEqualTo(jar.toAbsolutePath());
    assertThat(bench.workDir).isEqualTo(dir);
    // with the flags every process mapping the cache gives too, first (--jvm-opts may override)
    List<String> options = JvmFlags.split(bench.jvmOpts);
    assertThat(options)
        .startsWith(AotCacheCommand.CACHE_FLAGS.toArray(String[]::new))
        .endsWith("-XX:AOTCacheOutput=" + caches.resolve("{name}.aot"));
    assertThat(options.subList(AotCacheCommand.CACHE_FLAGS.size(), options.size()))
        .startsWith(AotCacheCommand.DEFAULT_JVM_OPTS.split(" "));
    assertThat(AotCacheCommand.CACHE_FLAGS).containsExactly("-XX:+UseCompactObjectHeaders");
    assertThat(AotCacheCommand.DEFAULT_JVM_OPTS).contains("-XX:+UseParallelGC");
  }

  @Test
  void shouldRefuseAJvmThatCannotWriteACacheBeforeStartingAnything(@TempDir Path dir)
      throws Exception {
    assumeTrue(
        Runtime.version().feature() < AotCacheCommand.AOT_CACHE_RELEASE, "this JVM can write one");
    // given a jar and an output path
    Path jar = Files.writeString(dir.resolve("skewer.jar"), "not started");
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream original = System.err;

    // when
    int exit;
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      exit =
          new CommandLine(new AotCacheCommand())
              .execute("--jar", jar.toString(), "--out", dir.resolve("skewer.aot").toString());
    } finally {
      System.setErr(original);
    }

    // then a usage error naming both releases, and no cache
    assertThat(exit).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("aot-cache needs Java 25 or later (this is Java " + Runtime.version().feature());
    assertThat(dir.resolve("skewer.aot")).doesNotExist();
  }

  @Test
  void shouldMapACacheOnlyOnAJvmThatCanAndOnlyWhenItExists(@TempDir Path dir) throws Exception {
    // given --aot-cache naming a file that does not exist
    Path missing = dir.resolve("missing.aot");
    DeployedBench bench = new DeployedBench();
    new CommandLine(bench).parseArgs("--aot-cache", missing.toString());
    assertThat(bench.classData.describe()).isEqualTo("AOT cache " + missing);

    // then the bench refuses it before it starts anything: for this JVM, or for the file
    assertThat(bench.classData.usable()).isFalse();
    if (Runtime.version().feature() < AotCacheCommand.AOT_CACHE_RELEASE) {
      assertThatThrownBy(() -> ClassDataOptions.aotCacheFlag(missing))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("--aot-cache needs Java 25 or later")
          .hasMessageContaining("Java " + Runtime.version().feature());
      return;
    }
    assertThatThrownBy(() -> ClassDataOptions.aotCacheFlag(missing))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no AOT cache at " + missing);
    // and given one that exists, every process maps it with the flags it was written with, without
    // a CDS archive
    Path cache = Files.writeString(dir.resolve("skewer.aot"), "a cache");
    DeployedBench withCache = new DeployedBench();
    new CommandLine(withCache).parseArgs("--aot-cache", cache.toString());
    assertThat(withCache.classData.withArchive(List.of("-Xmx1g"), dir.resolve("x.jar"), dir))
        .containsExactly(
            "-XX:+UseCompactObjectHeaders", "-Xmx1g", "-XX:AOTCache=" + cache.toAbsolutePath());
  }
}

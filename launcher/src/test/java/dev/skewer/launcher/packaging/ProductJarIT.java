package dev.skewer.launcher.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * The product jar {@code target/skewer.jar} (built in the package phase, before this test): it
 * holds the product commands and none of the Kafka broker, the testkit, the benchmarks or the dev
 * tools.
 */
class ProductJarIT {

  /** Class-file prefixes that must never be in the product jar. */
  private static final List<String> FORBIDDEN =
      List.of(
          "kafka/server/KafkaRaftServer", // the broker
          "kafka/Kafka.class",
          "kafka/tools/StorageTool",
          "org/apache/kafka/raft/",
          "org/apache/kafka/controller/",
          "scala/",
          "dev/skewer/testkit/",
          "dev/skewer/benchmarks/",
          "dev/skewer/devtools/",
          "org/openjdk/jmh/");

  private static Path jar() {
    Path jar = Paths.get("target", "skewer.jar");
    assertThat(jar).as("run after `package`: %s", jar.toAbsolutePath()).exists();
    return jar;
  }

  @Test
  void shouldHoldNoBrokerTestkitOrBenchmarkClasses() throws IOException {
    List<String> found = new ArrayList<>();
    boolean hasCli = false;
    boolean hasNode = false;
    try (JarFile jar = new JarFile(jar().toFile())) {
      Enumeration<JarEntry> entries = jar.entries();
      while (entries.hasMoreElements()) {
        String name = entries.nextElement().getName();
        hasCli |= name.equals("dev/skewer/launcher/SkewerCli.class");
        hasNode |= name.equals("dev/skewer/node/NodeRuntime.class");
        for (String prefix : FORBIDDEN) {
          if (name.startsWith(prefix)) {
            found.add(name);
          }
        }
      }
    }
    assertThat(hasCli).as("SkewerCli in the jar").isTrue();
    assertThat(hasNode).as("NodeRuntime in the jar").isTrue();
    assertThat(found).as("forbidden classes in skewer.jar").isEmpty();
  }

  @Test
  void shouldOfferOnlyTheProductCommands() throws Exception {
    Path out = Files.createTempFile("skewer-help", ".txt");
    try {
      Process p =
          new ProcessBuilder(
                  Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                  "-Xmx128m",
                  "-jar",
                  jar().toString(),
                  "--help")
              .redirectErrorStream(true)
              .redirectOutput(out.toFile())
              .start();
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("skewer.jar --help finished").isTrue();
      String help = Files.readString(out, StandardCharsets.UTF_8);
      assertThat(p.exitValue()).as(help).isZero();
      assertThat(help).contains("node", "coordinator", "loadgen");
      assertThat(help).doesNotContain("demo ", "broker ", "bench ");
    } finally {
      Files.deleteIfExists(out);
    }
  }
}

package dev.skewer.launcher.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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

  private record Result(int exit, String stdout, String stderr) {}

  /** Runs {@code java -jar skewer.jar args} from the repository root. */
  private static Result runJar(long timeoutSeconds, String... args) throws Exception {
    Path out = Files.createTempFile("skewer-out", ".txt");
    Path err = Files.createTempFile("skewer-err", ".txt");
    try {
      List<String> command = new ArrayList<>();
      command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
      command.add("-Xmx256m");
      command.add("-jar");
      command.add(jar().toAbsolutePath().toString());
      command.addAll(List.of(args));
      ProcessBuilder pb =
          new ProcessBuilder(command)
              .directory(Paths.get("..").toFile())
              .redirectOutput(out.toFile())
              .redirectError(err.toFile());
      pb.environment().keySet().removeIf(k -> k.startsWith("SKEWER_"));
      Process p = pb.start();
      if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("skewer.jar " + List.of(args) + " did not finish");
      }
      return new Result(
          p.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  @Test
  void shouldExitTwoWithOneLineForABadJobFile() throws Exception {
    Result r =
        runJar(60, "node", "--job", "examples/no-such-job.yaml", "--bootstrap", "127.0.0.1:1");
    assertThat(r.exit()).as(r.stderr()).isEqualTo(2);
    assertThat(r.stderr().strip())
        .isEqualTo("skewer node: job file: job file examples/no-such-job.yaml does not exist");
  }

  @Test
  void shouldLogJsonLinesAndReportAnUnreachableBrokerInOneLine() throws Exception {
    Result r =
        runJar(
            120,
            "loadgen",
            "--job",
            "examples/demo.yaml",
            "--bootstrap",
            "127.0.0.1:1",
            "-X",
            // long enough for the client's first connection attempts (and their warnings, the log
            // lines checked below) even when the machine is so busy that its threads wait seconds
            // for a core: with 3 s, a run beside a full build and a CPU hog logged none
            "max.block.ms=10000",
            "--events",
            "1",
            "--log-format",
            "json");
    assertThat(r.exit()).as(r.stderr()).isEqualTo(1);
    List<String> lines = r.stderr().lines().toList();
    assertThat(lines.get(lines.size() - 1)).startsWith("skewer loadgen: Kafka: ");
    List<String> logLines = lines.subList(0, lines.size() - 1);
    assertThat(logLines).isNotEmpty(); // the client's connection warnings
    for (String line : logLines) {
      JsonNode json = new ObjectMapper().readTree(line);
      assertThat(json.isObject()).as(line).isTrue();
      assertThat(json.path("level").asText()).as(line).isNotEmpty();
      assertThat(json.path("loggerName").asText()).as(line).isNotEmpty();
    }
    assertThat(r.stderr()).doesNotContain("\tat ");
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

package dev.skewer.devtools;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * The development jar {@code target/skewer-dev.jar} (what {@code ./skewer} runs): every product
 * command plus demo, broker and bench, with the broker inside.
 */
class DevJarIT {

  @Test
  void shouldOfferProductAndDevelopmentCommands() throws Exception {
    Path jar = Paths.get("target", "skewer-dev.jar");
    assertThat(jar).exists();
    try (JarFile j = new JarFile(jar.toFile())) {
      assertThat(j.getEntry("kafka/server/KafkaRaftServer.class")).isNotNull();
      assertThat(j.getEntry("dev/skewer/benchmarks/BenchCommand.class")).isNotNull();
      // lz4's native library loads without Java 22+'s "restricted method" warning, as from the
      // product jar
      assertThat(j.getManifest().getMainAttributes().getValue("Enable-Native-Access"))
          .isEqualTo("ALL-UNNAMED");
    }
    Path out = Files.createTempFile("skewer-dev-help", ".txt");
    try {
      Process p =
          new ProcessBuilder(
                  Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                  "-Xmx128m",
                  "-jar",
                  jar.toString(),
                  "--help")
              .redirectErrorStream(true)
              .redirectOutput(out.toFile())
              .start();
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      String help = Files.readString(out, StandardCharsets.UTF_8);
      assertThat(p.exitValue()).as(help).isZero();
      assertThat(help)
          .contains("  node ", "  coordinator ", "  loadgen ", "  demo ", "  broker ", "  bench ");
    } finally {
      Files.deleteIfExists(out);
    }
  }
}

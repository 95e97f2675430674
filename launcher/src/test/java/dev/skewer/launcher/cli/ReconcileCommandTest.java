package dev.skewer.launcher.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skewer.launcher.SkewerCli;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Usage errors of {@code skewer reconcile} and {@code skewer results} exit 2 before any read. */
class ReconcileCommandTest {

  @TempDir Path dir;

  private Path job() throws Exception {
    Path job = dir.resolve("job.yaml");
    Files.writeString(
        job,
        """
        name: t
        input: {keyPointer: /key, timePointer: /ts}
        window: {type: tumbling, size: 1m}
        """);
    return job;
  }

  private static int run(String... args) {
    return new CommandLine(new SkewerCli()).execute(args);
  }

  @Test
  void shouldExitWithUsageErrorOnBadArguments() throws Exception {
    String job = job().toString();
    // an unreachable broker: a usage error must be found before anything connects
    String broker = "127.0.0.1:1";
    assertThat(
            run(
                "reconcile",
                "--job",
                job,
                "--bootstrap",
                broker,
                "--from",
                "yesterday",
                "--to",
                "today"))
        .isEqualTo(2);
    assertThat(
            run(
                "reconcile",
                "--job",
                job,
                "--bootstrap",
                broker,
                "--from",
                "today",
                "--to",
                "today-1d"))
        .isEqualTo(2);
    assertThat(
            run(
                "reconcile",
                "--job",
                dir.resolve("missing.yaml").toString(),
                "--bootstrap",
                broker,
                "--from",
                "today-1d",
                "--to",
                "today"))
        .isEqualTo(2);
    assertThat(
            run(
                "reconcile",
                "--job",
                job,
                "--bootstrap",
                broker,
                "--from",
                "today-1d",
                "--to",
                "today",
                "--memory-budget",
                "lots"))
        .isEqualTo(2);
    assertThat(run("reconcile", "--job", job, "--bootstrap", broker)).isEqualTo(2);
    assertThat(run("results", "--job", job, "--bootstrap", broker, "--limit", "0")).isEqualTo(2);
    assertThat(run("results", "--job", job, "--bootstrap", broker, "--window", "soon"))
        .isEqualTo(2);
  }

  @Test
  void shouldParseMemorySizes() {
    assertThat(ReconcileCommand.parseSize("512k")).isEqualTo(512L << 10);
    assertThat(ReconcileCommand.parseSize("256m")).isEqualTo(256L << 20);
    assertThat(ReconcileCommand.parseSize("2G")).isEqualTo(2L << 30);
    assertThat(ReconcileCommand.parseSize("65536")).isEqualTo(65536);
    assertThatThrownBy(() -> ReconcileCommand.parseSize("-1m"))
        .hasMessageContaining("--memory-budget");
  }
}

package dev.skewer.launcher.operations;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.net.FreePorts;
import dev.skewer.launcher.SkewerCli;
import dev.skewer.testkit.job.JobYaml;
import dev.skewer.testkit.kafka.BrokerFixture;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code --no-provision} on a real broker, through the command line: a process that is told to
 * create nothing creates nothing — not the job's topics, not the checkpoint topic, not the hot-key
 * topic — and fails with exit code 1 and a message naming what is missing.
 */
class ProvisioningIT {

  @TempDir Path dir;

  /** Counts only, 10 s windows, the watermark's and the partials topic's defaults. */
  private static JobYaml job() {
    return JobYaml.named("prov")
        .defaultPartialsTopic()
        .countsOnly()
        .neverFinalize()
        .allowedLateness(Duration.ZERO);
  }

  private record Run(int exit, String err) {}

  private static Run run(String... args) {
    CommandLine cli = SkewerCli.commandLine(Map.of());
    StringWriter err = new StringWriter();
    cli.setErr(new PrintWriter(err, true));
    cli.setOut(new PrintWriter(new StringWriter(), true));
    return new Run(cli.execute(args), err.toString());
  }

  @Test
  void shouldCreateNothingAndNameTheMissingTopics() throws Exception {
    Path jobFile = dir.resolve("prov.yaml");
    Files.writeString(jobFile, job().yaml(), StandardCharsets.UTF_8);
    JobSpec job = job().spec();
    try (BrokerFixture broker = BrokerFixture.start()) {
      Admin admin = broker.admin();
      String bootstrap = broker.bootstrapServers();
      Set<String> before = admin.listTopics().names().get();

      // nothing exists: every topic the node needs is named, nothing is created
      Run node =
          run(
              "node",
              "--job",
              jobFile.toString(),
              "--bootstrap",
              bootstrap,
              "--no-provision",
              "--hz-port",
              "0",
              "--http-port",
              "0");
      assertThat(node.exit()).as(node.err()).isEqualTo(1);
      assertThat(node.err())
          .contains("skewer node: topics prov.events, skewer.prov.partials, prov.late, prov.dlq")
          .contains("do not exist")
          .doesNotContain("\tat ");
      assertThat(admin.listTopics().names().get()).isEqualTo(before);

      // the job's topics exist, the checkpoint topic does not
      broker.provision(job);
      Set<String> withJob = admin.listTopics().names().get();
      Run withMember =
          run(
              "node",
              "--job",
              jobFile.toString(),
              "--bootstrap",
              bootstrap,
              "--no-provision",
              "--hz-port",
              Integer.toString(FreePorts.next()),
              "--http-port",
              "0");
      assertThat(withMember.exit()).as(withMember.err()).isEqualTo(1);
      assertThat(withMember.err())
          .contains("topic skewer.prov.checkpoints")
          .contains("does not exist");
      assertThat(admin.listTopics().names().get()).isEqualTo(withJob);

      // a coordinator also needs the hot-key topic
      Run coordinator =
          run(
              "coordinator",
              "--job",
              jobFile.toString(),
              "--bootstrap",
              bootstrap,
              "--no-provision",
              "--hz-port",
              "0",
              "--http-port",
              "0");
      assertThat(coordinator.exit()).as(coordinator.err()).isEqualTo(1);
      assertThat(coordinator.err())
          .contains("topic skewer.prov.hotkeys")
          .contains("does not exist");
      assertThat(admin.listTopics().names().get()).isEqualTo(withJob);
    }
  }
}

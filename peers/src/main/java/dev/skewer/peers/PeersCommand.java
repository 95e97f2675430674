package dev.skewer.peers;

import dev.skewer.peers.flink.FlinkBench;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code java -jar peers/target/skewer-peers.jar <race>}: W1 on a peer engine. */
@Command(
    name = "skewer-peers",
    mixinStandardHelpOptions = true,
    description = "W1 on a peer engine, raced side by side with 'skewer bench deployed'.",
    subcommands = {FlinkBench.class})
public final class PeersCommand {

  private PeersCommand() {}

  public static void main(String[] args) {
    System.exit(new CommandLine(new PeersCommand()).execute(args));
  }
}

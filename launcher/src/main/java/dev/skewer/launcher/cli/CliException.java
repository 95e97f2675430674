package dev.skewer.launcher.cli;

/**
 * A flag value or file named by a flag is wrong in a way picocli cannot see while parsing (a Kafka
 * config file that does not exist, a wildcard bind address without a public address). The CLI
 * prints the message and exits {@value CliErrors#USAGE}.
 */
public final class CliException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CliException(String message) {
    super(message);
  }

  public CliException(String message, Throwable cause) {
    super(message, cause);
  }
}

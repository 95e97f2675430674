package dev.skewer.launcher.cli;

import dev.skewer.core.job.JobSpecException;
import dev.skewer.core.kafka.MissingTopicException;
import org.apache.kafka.common.KafkaException;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

/**
 * Turns the failures a user causes into one line and an exit code, without a stack trace:
 *
 * <ul>
 *   <li>{@value #USAGE}: a bad job file (missing, not YAML, an invalid field: {@link
 *       JobSpecException}) or a bad flag value found after parsing ({@link CliException}) —
 *       picocli's own usage errors exit {@value #USAGE} too;
 *   <li>{@value #STARTUP}: the process could not start as configured (a topic missing under {@code
 *       --no-provision}: {@link MissingTopicException}).
 * </ul>
 *
 * Anything else is a bug or an outage: its stack trace is printed and the exit code is {@value
 * #STARTUP}.
 */
public final class CliErrors implements IExecutionExceptionHandler {

  /** Exit code of a usage or configuration error. */
  public static final int USAGE = 2;

  /** Exit code of a failed start. */
  public static final int STARTUP = 1;

  @Override
  public int handleExecutionException(Exception ex, CommandLine cl, ParseResult parseResult) {
    String command = cl.getCommandSpec().qualifiedName();
    for (Throwable t = ex; t != null; t = t.getCause()) {
      if (t instanceof JobSpecException e) {
        cl.getErr().println(command + ": job file: " + e.getMessage());
        return USAGE;
      }
      if (t instanceof CliException e) {
        cl.getErr().println(command + ": " + e.getMessage());
        return USAGE;
      }
      if (t instanceof MissingTopicException e) {
        cl.getErr().println(command + ": " + e.getMessage());
        return STARTUP;
      }
    }
    for (Throwable t = ex; t != null; t = t.getCause()) {
      if (t instanceof KafkaException e) {
        // an unreachable or refusing broker: what failed, without the stack
        StringBuilder why = new StringBuilder(String.valueOf(e.getMessage()));
        for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
          why.append(": ").append(c.getMessage());
        }
        cl.getErr().println(command + ": Kafka: " + why);
        return STARTUP;
      }
    }
    ex.printStackTrace(cl.getErr());
    return STARTUP;
  }
}

package dev.skewer.launcher.cli;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Option;

/** {@code --log-format}: human-readable lines (default) or one JSON object per line. */
public final class LogOptions {

  /** The formats. */
  public enum Format {
    text,
    json
  }

  @Option(
      names = "--log-format",
      paramLabel = "text|json",
      defaultValue = "text",
      description =
          "Log lines on stderr: text, or json (one JSON object per line, logback's JsonEncoder)."
              + " Default: ${DEFAULT-VALUE}.")
  Format format = Format.text;

  /** Switches the root logger to the chosen format; call first thing in a command. */
  public void apply() {
    if (format == Format.json) {
      useJson();
    }
  }

  /** Replaces the root logger's appenders by one writing JSON lines to stderr. */
  static void useJson() {
    ILoggerFactory factory = LoggerFactory.getILoggerFactory();
    if (!(factory instanceof LoggerContext context)) {
      throw new CliException(
          "--log-format json needs logback as the SLF4J binding, found " + factory.getClass());
    }
    JsonEncoder encoder = new JsonEncoder();
    encoder.setContext(context);
    encoder.start();
    ConsoleAppender<ILoggingEvent> appender = new ConsoleAppender<>();
    appender.setContext(context);
    appender.setName("JSON");
    appender.setTarget("System.err");
    appender.setEncoder(encoder);
    appender.start();
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.detachAndStopAllAppenders();
    root.addAppender(appender);
  }
}

package dev.skewer.launcher.cli;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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

  /** The environment variable logback.xml reads the level of Skewer's own loggers from. */
  public static final String LEVEL_VARIABLE = "SKEWER_LOG_LEVEL";

  /** The levels logback knows; it reads any other text as DEBUG. */
  static final List<String> LEVELS =
      List.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "OFF", "ALL");

  /**
   * Refuses a {@value #LEVEL_VARIABLE} that logback would not read as the level it names: logback
   * takes any text it does not know (a typo, an empty value) as DEBUG, and the process would log at
   * DEBUG without a word. Unset is fine ({@code INFO}); case does not matter.
   */
  static void checkLevel(Map<String, String> env) {
    String level = env.get(LEVEL_VARIABLE);
    if (level != null && !LEVELS.contains(level.strip().toUpperCase(Locale.ROOT))) {
      throw new CliException(
          LEVEL_VARIABLE
              + " must be one of "
              + String.join(", ", LEVELS)
              + "; was '"
              + level
              + "'");
    }
  }

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

package dev.skewer.stage;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * What one logger logs during a test, from whichever thread logs it; {@link #close} detaches it and
 * gives the logger its level back.
 */
final class CapturedLog implements AutoCloseable {

  private final Logger logger;
  private final Level levelBefore;
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  /** Captures what {@code source}'s logger logs, at {@code level} and above. */
  CapturedLog(Class<?> source, Level level) {
    this.logger = (Logger) LoggerFactory.getLogger(source);
    this.levelBefore = logger.getLevel();
    appender.start();
    logger.addAppender(appender);
    logger.setLevel(level);
  }

  /** The events logged so far (the appender adds them under its own lock). */
  List<ILoggingEvent> events() {
    synchronized (appender) {
      return List.copyOf(appender.list);
    }
  }

  /** The messages logged so far at {@code level}. */
  List<String> messages(Level level) {
    return events().stream()
        .filter(e -> e.getLevel() == level)
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  @Override
  public void close() {
    logger.detachAppender(appender);
    logger.setLevel(levelBefore);
  }
}

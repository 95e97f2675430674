package dev.skewer.crossprocess;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The logback configuration of the child JVMs: Skewer at INFO (lifecycle, assignments, routed
 * events), Kafka, Hazelcast, Vert.x and Netty at WARN, to the child's stdout (its log file). The
 * children share this JVM's class path and would otherwise pick up the test's WARN-only {@code
 * logback-test.xml}.
 */
public final class ChildLogging {

  static final String FILE_NAME = "child-logback.xml";

  private static final String XML =
      """
      <configuration>
        <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
          <encoder>
            <pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{30} - %msg%n</pattern>
          </encoder>
        </appender>
        <logger name="org.apache.kafka" level="WARN"/>
        <logger name="kafka" level="WARN"/>
        <logger name="com.hazelcast" level="WARN"/>
        <logger name="io.vertx" level="WARN"/>
        <logger name="io.netty" level="WARN"/>
        <logger name="dev.skewer" level="INFO"/>
        <root level="INFO">
          <appender-ref ref="OUT"/>
        </root>
      </configuration>
      """;

  private ChildLogging() {}

  /** Writes the configuration into {@code dir} if it is not there yet; returns its path. */
  public static synchronized Path configFile(Path dir) {
    Path file = dir.resolve(FILE_NAME);
    try {
      if (!Files.exists(file)) {
        Files.createDirectories(dir);
        Files.writeString(file, XML, StandardCharsets.UTF_8);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
    return file.toAbsolutePath();
  }
}

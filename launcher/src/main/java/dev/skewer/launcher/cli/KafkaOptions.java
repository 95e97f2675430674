package dev.skewer.launcher.cli;

import dev.skewer.core.kafka.KafkaSettings;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import picocli.CommandLine.Option;

/**
 * How a command reaches Kafka: {@code --bootstrap}, a {@code --kafka-config} file of client
 * properties (SASL/TLS secrets stay out of the command line) and {@code -X key=value} properties,
 * which win over the file.
 */
public final class KafkaOptions {

  @Option(
      names = "--bootstrap",
      required = true,
      paramLabel = "HOST:PORT,...",
      description = "Kafka bootstrap servers.")
  String bootstrap;

  @Option(
      names = "--kafka-config",
      paramLabel = "FILE",
      description =
          "A Java properties file of Kafka client properties (security.protocol, sasl.*, ssl.*,"
              + " ...); -X wins over it.")
  Path kafkaConfig;

  @Option(
      names = {"-X", "--kafka-property"},
      paramLabel = "KEY=VALUE",
      description = "A Kafka client property (e.g. security.protocol=SSL); repeatable.")
  Map<String, String> kafkaProperties = new LinkedHashMap<>();

  /** The bootstrap servers plus the file's properties overridden by {@code -X}. */
  public KafkaSettings settings() {
    Map<String, String> props = new LinkedHashMap<>();
    if (kafkaConfig != null) {
      props.putAll(read(kafkaConfig));
    }
    props.putAll(kafkaProperties);
    return new KafkaSettings(bootstrap, props);
  }

  /** The bootstrap servers as given. */
  public String bootstrap() {
    return bootstrap;
  }

  static Map<String, String> read(Path file) {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(r);
    } catch (NoSuchFileException e) {
      throw new CliException("--kafka-config " + file + ": no such file");
    } catch (IOException | IllegalArgumentException e) {
      throw new CliException("--kafka-config " + file + ": cannot read it: " + e.getMessage(), e);
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (String name : p.stringPropertyNames()) {
      out.put(name, p.getProperty(name));
    }
    return out;
  }
}

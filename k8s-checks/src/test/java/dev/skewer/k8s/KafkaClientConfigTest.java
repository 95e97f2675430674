package dev.skewer.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka client properties file the chart renders, read by Kafka's own client configuration with
 * the Secrets "mounted" in a temp dir (the mount paths rewritten to it): the SASL JAAS line and the
 * keystore password come out of the Secret files, and nothing secret is in the file.
 */
class KafkaClientConfigTest {

  static final String JAAS =
      "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"skewer\""
          + " password=\"s3cr3t-from-the-secret\";";

  @Test
  void shouldResolveSecretsFromTheMountedFiles(@TempDir Path mounts) throws IOException {
    // given the secured value set's pods, with their Secrets' files where the pod would see them
    RenderedChart chart = RenderedChart.valueSet("secured");
    String rendered = chart.config().getData().get("kafka.properties");
    Path sasl = Files.createDirectories(mounts.resolve("kafka-sasl"));
    Files.writeString(sasl.resolve("sasl.jaas.config"), JAAS, StandardCharsets.UTF_8);
    Path client = Files.createDirectories(mounts.resolve("kafka-client"));
    Files.writeString(client.resolve("user.password"), "keystore-pass", StandardCharsets.UTF_8);
    String local =
        rendered
            .replace("/etc/skewer/kafka-sasl", sasl.toString())
            .replace("/etc/skewer/kafka-client", client.toString())
            .replace("/etc/skewer/kafka-ca", mounts.resolve("kafka-ca").toString());
    assertThat(rendered).doesNotContain("s3cr3t").doesNotContain("keystore-pass");

    // when Kafka's client reads it
    Properties props = new Properties();
    props.load(new StringReader(local));
    Map<String, Object> config = new HashMap<>();
    props.forEach((k, v) -> config.put((String) k, v));
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "prod-kafka-bootstrap.kafka.svc:9093");
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    ConsumerConfig consumer = new ConsumerConfig(config);

    // then
    assertThat(consumer.getString("security.protocol")).isEqualTo("SASL_SSL");
    assertThat(consumer.getString("sasl.mechanism")).isEqualTo("SCRAM-SHA-512");
    assertThat(consumer.getPassword("sasl.jaas.config")).isEqualTo(new Password(JAAS));
    assertThat(consumer.getPassword("ssl.keystore.password"))
        .isEqualTo(new Password("keystore-pass"));
    assertThat(consumer.getString("ssl.truststore.type")).isEqualTo("PEM");
    assertThat(consumer.getString("ssl.truststore.location"))
        .isEqualTo(mounts.resolve("kafka-ca").resolve("ca.crt").toString());
    assertThat(consumer.getString("ssl.keystore.location"))
        .isEqualTo(client.resolve("user.p12").toString());
    assertThat(consumer.getString("client.rack")).isEqualTo("zone-a");
    assertThat(consumer.getInt("session.timeout.ms")).isEqualTo(10_000);
    // a large number stays a whole number (Helm reads values as floats)
    assertThat(consumer.getInt("fetch.max.bytes")).isEqualTo(52_428_800);
  }

  @Test
  void shouldRenderPlaintextWithoutProvidersByDefault() {
    String rendered = RenderedChart.defaults().config().getData().get("kafka.properties");
    assertThat(rendered).contains("security.protocol=PLAINTEXT").doesNotContain("config.providers");
  }
}

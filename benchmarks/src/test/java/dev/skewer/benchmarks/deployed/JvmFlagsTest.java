package dev.skewer.benchmarks.deployed;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class JvmFlagsTest {

  @Test
  void shouldSplitOnAnyWhitespaceWhenFlagsAreSpaced() {
    assertThat(JvmFlags.split("  -Xmx3g \t-XX:+UseParallelGC\n-Dx=1 "))
        .containsExactly("-Xmx3g", "-XX:+UseParallelGC", "-Dx=1");
  }

  @Test
  void shouldGiveNoFlagWhenTheOptionIsEmpty() {
    assertThat(JvmFlags.split("")).isEmpty();
    assertThat(JvmFlags.split("   ")).isEmpty();
  }

  @Test
  void shouldGiveKafkasFlagsToTheBrokerUnlessTold() {
    BrokerJvmOptions unset = new BrokerJvmOptions();
    new CommandLine(unset).parseArgs();
    assertThat(unset.list())
        .isEqualTo(dev.skewer.testkit.kafka.KafkaBrokerProcess.KAFKA_DEFAULT_JVM_OPTIONS);

    BrokerJvmOptions given = new BrokerJvmOptions();
    new CommandLine(given).parseArgs("--broker-jvm-opts=-Xmx512m  -XX:+UseSerialGC");
    assertThat(given.list()).containsExactly("-Xmx512m", "-XX:+UseSerialGC");

    BrokerJvmOptions empty = new BrokerJvmOptions();
    new CommandLine(empty).parseArgs("--broker-jvm-opts=");
    assertThat(empty.list()).isEmpty();
  }
}

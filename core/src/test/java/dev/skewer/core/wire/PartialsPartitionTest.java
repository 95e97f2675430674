package dev.skewer.core.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.StringLength;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.junit.jupiter.api.Test;

class PartialsPartitionTest {

  @Property(tries = 2_000)
  void shouldBeTheKafkaDefaultPartitionersChoiceForTheKey(
      @ForAll @StringLength(min = 1, max = 40) String key,
      @ForAll @IntRange(min = 1, max = 64) int partitions) {
    int expected =
        BuiltInPartitioner.partitionForKey(key.getBytes(StandardCharsets.UTF_8), partitions);
    assertThat(PartialsPartition.of(key, partitions)).isEqualTo(expected);
    assertThat(PartialsPartition.of(key.getBytes(StandardCharsets.UTF_8), partitions))
        .isEqualTo(expected);
  }

  @Test
  void shouldRefuseNoPartitions() {
    assertThatThrownBy(() -> PartialsPartition.of("ad1", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("partitions must be positive");
  }
}

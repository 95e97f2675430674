package dev.skewer.loadgen.partition;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.junit.jupiter.api.Test;

class EventPartitionerTest {

  @Test
  void shouldMatchKafkaDefaultPartitionerWhenKeyed() {
    for (int partitions = 1; partitions <= 16; partitions++) {
      for (int k = 0; k < 2_000; k++) {
        String key = k % 3 == 0 ? "ad" + k : k % 3 == 1 ? "ad" + k + "#" + (k % 7) : "ü-" + k;
        assertThat(EventPartitioner.partition(key, partitions))
            .as("key %s over %d partitions", key, partitions)
            .isEqualTo(
                BuiltInPartitioner.partitionForKey(
                    key.getBytes(StandardCharsets.UTF_8), partitions));
      }
    }
  }
}

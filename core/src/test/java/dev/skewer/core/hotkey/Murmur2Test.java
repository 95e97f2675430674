package dev.skewer.core.hotkey;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.apache.kafka.common.utils.Utils;

class Murmur2Test {

  @Property
  void shouldEqualKafkasMurmur2OnAnyRange(
      @ForAll @Size(max = 64) byte[] prefix,
      @ForAll @Size(max = 64) byte[] data,
      @ForAll @IntRange(min = 1, max = 64) int partitions) {
    byte[] padded = new byte[prefix.length + data.length + 3];
    System.arraycopy(prefix, 0, padded, 0, prefix.length);
    System.arraycopy(data, 0, padded, prefix.length, data.length);
    assertThat(Murmur2.hash(padded, prefix.length, data.length)).isEqualTo(Utils.murmur2(data));
    assertThat(Murmur2.partition(padded, prefix.length, data.length, partitions))
        .isEqualTo(Utils.toPositive(Utils.murmur2(data)) % partitions);
  }
}

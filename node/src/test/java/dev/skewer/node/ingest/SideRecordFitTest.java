package dev.skewer.node.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

class SideRecordFitTest {

  private static ProducerRecord<byte[], byte[]> record(int keyBytes, int valueBytes, long seed) {
    Random r = new Random(seed);
    byte[] key = keyBytes < 0 ? null : new byte[keyBytes];
    byte[] value = new byte[valueBytes];
    if (key != null) {
      r.nextBytes(key);
    }
    r.nextBytes(value);
    RecordHeaders headers = new RecordHeaders();
    headers.add("skewer.source.topic", "events".getBytes(StandardCharsets.UTF_8));
    headers.add("skewer.source.offset", "123456789".getBytes(StandardCharsets.UTF_8));
    headers.add("skewer.dlq.reason", "too_large".getBytes(StandardCharsets.UTF_8));
    return new ProducerRecord<>("skewer.dlq", null, key, value, headers);
  }

  private static String header(ProducerRecord<byte[], byte[]> r, String name) {
    Header h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  @Test
  void shouldLeaveARecordThatFitsUntouched() {
    ProducerRecord<byte[], byte[]> r = record(10, 50_000, 1);

    assertThat(SideRecordFit.fit(r, 1_048_576)).isSameAs(r);
  }

  @Test
  void shouldCutTheValueOfATwoMegabyteRecordToFitOneMebibyteAndSaySo() {
    ProducerRecord<byte[], byte[]> r = record(10, 2 * 1024 * 1024, 2);

    ProducerRecord<byte[], byte[]> fitted = SideRecordFit.fit(r, 1_048_576);

    assertThat(SideRecordFit.sizeOf(fitted.key(), fitted.value(), fitted.headers().toArray()))
        .isLessThanOrEqualTo(SideRecordFit.budget(1_048_576));
    assertThat(fitted.value().length).isGreaterThan(1_000_000); // nearly all the room is used
    assertThat(fitted.value()).isEqualTo(Arrays.copyOf(r.value(), fitted.value().length));
    assertThat(fitted.key()).isEqualTo(r.key());
    assertThat(header(fitted, SideRecordFit.TRUNCATED_HEADER)).isEqualTo("value");
    assertThat(header(fitted, SideRecordFit.ORIGINAL_VALUE_BYTES_HEADER))
        .isEqualTo(Integer.toString(2 * 1024 * 1024));
    assertThat(header(fitted, "skewer.source.offset")).isEqualTo("123456789");
    assertThat(header(fitted, "skewer.dlq.reason")).isEqualTo("too_large");
    assertThat(fitted.topic()).isEqualTo(r.topic());
  }

  @Test
  void shouldCutTheKeyWhenTheKeyAloneDoesNotFit() {
    ProducerRecord<byte[], byte[]> r = record(20_000, 30_000, 3);

    ProducerRecord<byte[], byte[]> fitted = SideRecordFit.fit(r, 12_000);

    assertThat(header(fitted, SideRecordFit.TRUNCATED_HEADER)).isEqualTo("key,value");
    assertThat(header(fitted, SideRecordFit.ORIGINAL_KEY_BYTES_HEADER)).isEqualTo("20000");
    assertThat(header(fitted, SideRecordFit.ORIGINAL_VALUE_BYTES_HEADER)).isEqualTo("30000");
    assertThat(fitted.value()).isEmpty();
    assertThat(fitted.key()).isEqualTo(Arrays.copyOf(r.key(), fitted.key().length));
    assertThat(SideRecordFit.sizeOf(fitted.key(), fitted.value(), fitted.headers().toArray()))
        .isLessThanOrEqualTo(SideRecordFit.budget(12_000));
  }

  @Property(tries = 300)
  void shouldAlwaysFitTheBudgetAndKeepAPrefix(
      @ForAll @IntRange(min = -1, max = 5_000) int keyBytes,
      @ForAll @IntRange(min = 0, max = 200_000) int valueBytes,
      @ForAll @IntRange(min = 4_000, max = 150_000) int limit) {
    ProducerRecord<byte[], byte[]> r = record(keyBytes, valueBytes, keyBytes * 31L + valueBytes);

    ProducerRecord<byte[], byte[]> fitted = SideRecordFit.fit(r, limit);

    assertThat(SideRecordFit.sizeOf(fitted.key(), fitted.value(), fitted.headers().toArray()))
        .isLessThanOrEqualTo(SideRecordFit.budget(limit));
    assertThat(fitted.value()).isEqualTo(Arrays.copyOf(r.value(), fitted.value().length));
    if (fitted != r) {
      assertThat(header(fitted, SideRecordFit.ORIGINAL_VALUE_BYTES_HEADER))
          .isEqualTo(Integer.toString(valueBytes));
    }
  }
}

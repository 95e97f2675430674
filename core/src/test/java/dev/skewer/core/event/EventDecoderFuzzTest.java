package dev.skewer.core.event;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/** The decoder never throws, whatever the bytes; its ISO parser agrees with java.time. */
class EventDecoderFuzzTest {

  private final EventDecoder decoder = new EventDecoder(EventDecoderTest.job(Map.of()));
  private final DecodedEvent event = DecodedEvent.forJob(EventDecoderTest.job(Map.of()));

  @Test
  void shouldNeverThrowWhenValidEventsAreMutated() {
    byte[] seed =
        ("{\"key\":\"ad42#3\",\"ts\":\"2023-11-14T22:13:20.5+01:00\",\"value\":12.5,"
                + "\"m\":{\"cost\":-3},\"user\":{\"id\":\"u1\"},\"country\":\"ie\"}")
            .getBytes(StandardCharsets.UTF_8);
    Random random = new Random(42);
    int ok = 0;
    for (int i = 0; i < 20_000; i++) {
      byte[] b = seed.clone();
      int mutations = 1 + random.nextInt(4);
      for (int m = 0; m < mutations; m++) {
        int pos = random.nextInt(b.length);
        switch (random.nextInt(3)) {
          case 0:
            b[pos] = (byte) random.nextInt(256);
            break;
          case 1:
            b[pos] =
                (byte) "{}[]\":,0123456789.eE+-NaInfity \\tnulrsTZ#".charAt(random.nextInt(41));
            break;
          default:
            b = Arrays.copyOf(b, pos);
        }
        if (b.length == 0) {
          break;
        }
      }
      if (decoder.decode(b, event) == null) {
        ok++;
      }
    }
    assertThat(ok).isPositive();
  }

  @Property(tries = 500)
  void shouldAgreeWithJavaTimeOnIsoInstants(
      @ForAll
          @LongRange(
              min = -62_135_596_800_000L + 64_800_000L,
              max = 253_402_300_799_999L - 64_800_000L)
          long ms,
      @ForAll @IntRange(min = -18 * 4, max = 18 * 4) int quarterHours) {
    ZoneOffset offset = ZoneOffset.ofTotalSeconds(quarterHours * 900);
    String iso = OffsetDateTime.ofInstant(Instant.ofEpochMilli(ms), offset).toString();
    char[] chars = ("xx" + iso + "yy").toCharArray();
    assertThat(EventDecoder.IsoInstant.parseMs(chars, 2, iso.length())).as(iso).isEqualTo(ms);
  }
}

package dev.skewer.core.hotkey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Random;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

class HotKeyCodecTest {

  @Property
  void shouldRoundTripEveryEntry(
      @ForAll @StringLength(min = 1, max = 40) String key,
      @ForAll @IntRange(min = 2, max = HotKey.MAX_FANOUT) int fanout,
      @ForAll @LongRange(min = 0) long sinceMs) {
    // lone surrogates cannot cross UTF-8; the node rejects such keys as BAD_KEY upstream
    Assume.that(
        new String(key.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8).equals(key));
    HotKey h = new HotKey(key, fanout, sinceMs);
    assertThat(HotKeyCodec.decode(HotKeyCodec.encodeKey(key), HotKeyCodec.encodeValue(h)))
        .isEqualTo(h);
  }

  @Test
  void shouldMatchTheGoldenEncoding() {
    byte[] value = HotKeyCodec.encodeValue(new HotKey("ad0", 4, 1_700_000_000_000L));
    assertThat(HexFormat.of().formatHex(value)).isEqualTo("01" + "00000004" + "0000018bcfe56800");
    assertThat(HexFormat.of().formatHex(HotKeyCodec.encodeKey("ad0"))).isEqualTo("616430");
  }

  @Test
  void shouldDecodeATombstoneAsNull() {
    assertThat(HotKeyCodec.decode(HotKeyCodec.encodeKey("ad0"), null)).isNull();
    assertThat(HotKeyCodec.decodeKey(HotKeyCodec.encodeKey("ad0"))).isEqualTo("ad0");
  }

  @Test
  void shouldRejectBadRecordsWithOneExceptionType() {
    byte[] k = HotKeyCodec.encodeKey("ad0");
    byte[] good = HotKeyCodec.encodeValue(new HotKey("ad0", 4, 7));
    byte[] v2 = good.clone();
    v2[0] = 2;
    byte[] fanout1 = good.clone();
    fanout1[4] = 1;
    byte[] negativeSince = good.clone();
    negativeSince[5] = (byte) 0x80;
    assertThatThrownBy(() -> HotKeyCodec.decode(k, v2))
        .isInstanceOf(HotKeyCodecException.class)
        .hasMessageContaining("version 2");
    assertThatThrownBy(() -> HotKeyCodec.decode(k, fanout1))
        .isInstanceOf(HotKeyCodecException.class)
        .hasMessageContaining("fanout");
    assertThatThrownBy(() -> HotKeyCodec.decode(k, negativeSince))
        .isInstanceOf(HotKeyCodecException.class)
        .hasMessageContaining("sinceMs");
    assertThatThrownBy(() -> HotKeyCodec.decode(k, new byte[12]))
        .isInstanceOf(HotKeyCodecException.class)
        .hasMessageContaining("13 bytes");
    assertThatThrownBy(() -> HotKeyCodec.decode(null, good))
        .isInstanceOf(HotKeyCodecException.class);
    assertThatThrownBy(() -> HotKeyCodec.decode(new byte[] {(byte) 0xff}, good))
        .isInstanceOf(HotKeyCodecException.class)
        .hasMessageContaining("UTF-8");
  }

  @Test
  void shouldThrowOnlyTheCodecExceptionForRandomBytes() {
    Random random = new Random(42);
    for (int i = 0; i < 20_000; i++) {
      byte[] key = new byte[random.nextInt(6)];
      byte[] value = new byte[random.nextInt(3) == 0 ? 13 : random.nextInt(20)];
      random.nextBytes(key);
      random.nextBytes(value);
      if (value.length > 0 && random.nextInt(4) == 0) {
        value[0] = 1;
      }
      try {
        HotKeyCodec.decode(key, value);
      } catch (HotKeyCodecException expected) {
        // the one permitted failure
      }
    }
  }
}

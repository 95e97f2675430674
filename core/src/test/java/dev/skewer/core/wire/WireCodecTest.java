package dev.skewer.core.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skewer.core.window.WindowShape;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

class WireCodecTest {

  private static final Partial PARTIAL =
      new Partial(3, 7, 42, "ad42", 1_700_000_000_000L, 1_700_000_010_000L, new byte[] {1, 2, 3});
  private static final Watermark WATERMARK = new Watermark(3, 7, 1_699_999_998_000L, true);

  private static final Partial SESSION_PARTIAL =
      new Partial(
          3,
          7,
          42,
          "ad42",
          1_700_000_000_000L,
          1_700_000_150_000L,
          new byte[] {1, 2, 3},
          new WindowShape.Session(600_000),
          1_700_000_000_005L,
          1_700_000_100_000L,
          new String[] {"slots", null});
  private static final Partial HOPPING_PARTIAL =
      new Partial(
          3,
          7,
          42,
          "ad42",
          1_700_000_000_000L,
          1_700_000_010_000L,
          new byte[] {1, 2, 3},
          new WindowShape.Hopping(60_000, 10_000),
          1_700_000_000_000L,
          1_700_000_009_999L,
          Partial.NO_DIMENSIONS);

  // format version 2 encodings (no seq, no first window end, no close): still read
  private static final String PARTIAL_V2_HEX =
      "0201"
          + "00000003"
          + "0000000000000007"
          + "000000000000002a"
          + "0000018bcfe56800"
          + "0000018bcfe58f10"
          + "0000018bcfe56800"
          + "0000018bcfe58f0f"
          + "00"
          + "0000000000000000"
          + "0000000000000000"
          + "00"
          + "00000004"
          + "61643432"
          + "00000003"
          + "010203";
  private static final String HOPPING_PARTIAL_V2_HEX =
      "0201"
          + "00000003"
          + "0000000000000007"
          + "000000000000002a"
          + "0000018bcfe56800"
          + "0000018bcfe58f10"
          + "0000018bcfe56800"
          + "0000018bcfe58f0f"
          + "01"
          + "000000000000ea60"
          + "0000000000002710"
          + "00"
          + "00000004"
          + "61643432"
          + "00000003"
          + "010203";
  private static final String SESSION_PARTIAL_V2_HEX =
      "0201"
          + "00000003"
          + "0000000000000007"
          + "000000000000002a"
          + "0000018bcfe56800"
          + "0000018bcfe7b1f0"
          + "0000018bcfe56805"
          + "0000018bcfe6eea0"
          + "02"
          + "00000000000927c0"
          + "0000000000000000"
          + "02"
          + "00000005"
          + "736c6f7473"
          + "ffffffff"
          + "00000004"
          + "61643432"
          + "00000003"
          + "010203";
  private static final String WATERMARK_V2_HEX =
      "0202" + "00000003" + "0000000000000007" + "0000018bcfe56030" + "01";
  // format version 1, written before hopping and session windows: still read
  private static final String PARTIAL_V1_HEX =
      "0101"
          + "00000003"
          + "0000000000000007"
          + "000000000000002a"
          + "0000018bcfe56800"
          + "0000018bcfe58f10"
          + "00000004"
          + "61643432"
          + "00000003"
          + "010203";
  private static final String WATERMARK_V1_HEX =
      "0102" + "00000003" + "0000000000000007" + "0000018bcfe56030" + "01";

  // golden encodings of format 3: a change here is a format change and must bump FORMAT_VERSION
  private static final String PARTIAL_HEX =
      "0301"
          + "00000003"
          + "0000000000000007"
          + "0000000000000005" // seq
          + "000000000000002a"
          + "0000018bcfe56800"
          + "0000018bcfe58f10"
          + "0000018bcfe58f10" // first window end = slice end
          + "0000018bcfe56800"
          + "0000018bcfe58f0f"
          + "00"
          + "0000000000000000"
          + "0000000000000000"
          + "00"
          + "00000004"
          + "61643432"
          + "00000003"
          + "010203";
  private static final String HOPPING_PARTIAL_HEX =
      "0301"
          + "00000003"
          + "0000000000000007"
          + "0000000000000000" // seq
          + "000000000000002a"
          + "0000018bcfe56800"
          + "0000018bcfe58f10"
          + "0000018bcfe5dd30" // first window end: 20 s after the slice end
          + "0000018bcfe56800"
          + "0000018bcfe58f0f"
          + "01"
          + "000000000000ea60"
          + "0000000000002710"
          + "00"
          + "00000004"
          + "61643432"
          + "00000003"
          + "010203";
  private static final String WATERMARK_HEX =
      "0302"
          + "00000003"
          + "0000000000000007"
          + "0000000000000009" // seq
          + "0000018bcfe56030"
          + "0000018bcfe58740" // close: 10 s after the watermark
          + "01";

  @Test
  void shouldMatchTheGoldenEncodings() {
    Partial partial = PARTIAL.withSeq(5);
    Partial hopping =
        new Partial(
            3,
            7,
            42,
            "ad42",
            1_700_000_000_000L,
            1_700_000_010_000L,
            new byte[] {1, 2, 3},
            new WindowShape.Hopping(60_000, 10_000),
            1_700_000_000_000L,
            1_700_000_009_999L,
            Partial.NO_DIMENSIONS,
            1_700_000_030_000L,
            0);
    Watermark watermark =
        new Watermark(3, 7, WATERMARK.watermarkMs(), true, WATERMARK.watermarkMs() + 10_000, 9);
    assertThat(HexFormat.of().formatHex(WireCodec.encode(partial))).isEqualTo(PARTIAL_HEX);
    assertThat(HexFormat.of().formatHex(WireCodec.encode(hopping))).isEqualTo(HOPPING_PARTIAL_HEX);
    assertThat(HexFormat.of().formatHex(WireCodec.encode(watermark))).isEqualTo(WATERMARK_HEX);
    assertThat(WireCodec.decode(HexFormat.of().parseHex(PARTIAL_HEX))).isEqualTo(partial);
    assertThat(WireCodec.decode(HexFormat.of().parseHex(HOPPING_PARTIAL_HEX))).isEqualTo(hopping);
    assertThat(WireCodec.decode(HexFormat.of().parseHex(WATERMARK_HEX))).isEqualTo(watermark);
  }

  @Test
  void shouldStillDecodeFormatVersion2WithoutSequenceNumbers() {
    assertThat(WireCodec.decode(HexFormat.of().parseHex(PARTIAL_V2_HEX))).isEqualTo(PARTIAL);
    assertThat(WireCodec.decode(HexFormat.of().parseHex(HOPPING_PARTIAL_V2_HEX)))
        .isEqualTo(HOPPING_PARTIAL);
    assertThat(WireCodec.decode(HexFormat.of().parseHex(SESSION_PARTIAL_V2_HEX)))
        .isEqualTo(SESSION_PARTIAL);
    assertThat(WireCodec.decode(HexFormat.of().parseHex(WATERMARK_V2_HEX))).isEqualTo(WATERMARK);
    assertThat(PARTIAL.seq()).isEqualTo(-1);
    assertThat(WATERMARK.closeMs()).isEqualTo(WATERMARK.watermarkMs());
  }

  @Test
  void shouldStillDecodeFormatVersion1() {
    assertThat(WireCodec.decode(HexFormat.of().parseHex(PARTIAL_V1_HEX))).isEqualTo(PARTIAL);
    assertThat(WireCodec.decode(HexFormat.of().parseHex(WATERMARK_V1_HEX))).isEqualTo(WATERMARK);
  }

  @Property(tries = 300)
  void shouldRoundTripPartials(
      @ForAll @IntRange(min = 0) int source,
      @ForAll @LongRange(min = 0) long epoch,
      @ForAll @LongRange(min = 0) long version,
      @ForAll @StringLength(min = 1, max = 40) String key,
      @ForAll @LongRange(min = -1_000_000_000_000_000L, max = 1_000_000_000_000_000L) long start,
      @ForAll @LongRange(min = 1, max = 86_400_000) long size,
      @ForAll @Size(max = 64) byte[] aggregate) {
    Assume.that(wellFormed(key));
    Partial p = new Partial(source, epoch, version, key, start, start + size, aggregate);
    assertThat(WireCodec.decode(WireCodec.encode(p))).isEqualTo(p);
  }

  @Property(tries = 200)
  void shouldRoundTripWatermarks(
      @ForAll @IntRange(min = 0) int source,
      @ForAll @LongRange(min = 0) long epoch,
      @ForAll long watermarkMs,
      @ForAll boolean idle,
      @ForAll boolean finalized,
      @ForAll @LongRange(min = 0, max = 1_000_000) long closeAhead,
      @ForAll @LongRange(min = -1) long seq) {
    long closeMs =
        watermarkMs > Long.MAX_VALUE - closeAhead ? watermarkMs : watermarkMs + closeAhead;
    Watermark w = new Watermark(source, epoch, watermarkMs, idle, closeMs, seq, idle && finalized);
    assertThat(WireCodec.decode(WireCodec.encode(w))).isEqualTo(w);
  }

  @Property(tries = 300)
  void shouldRoundTripSessionPartialsWithDimensions(
      @ForAll @LongRange(min = -1_000_000_000_000L, max = 1_000_000_000_000L) long start,
      @ForAll @LongRange(min = 1, max = 600_000) long slice,
      @ForAll @LongRange(min = 0, max = 599_999) long a,
      @ForAll @LongRange(min = 0, max = 599_999) long b,
      @ForAll @Size(max = 4) List<@StringLength(max = 12) String> dims) {
    Assume.that(dims.stream().allMatch(d -> d == null || wellFormed(d)));
    long first = start + Math.min(a, b) % slice;
    long last = Math.max(first, start + Math.max(a, b) % slice);
    Partial p =
        new Partial(
            1,
            2,
            3,
            "u1",
            start,
            start + slice,
            new byte[] {9},
            new WindowShape.Session(4 * slice),
            first,
            last,
            dims.toArray(new String[0]));
    assertThat(WireCodec.decode(WireCodec.encode(p))).isEqualTo(p);
  }

  @Test
  void shouldRoundTripUnicodeKeysAndEmptyAggregates() {
    Partial p = new Partial(0, 0, 0, "café ☃ \uD83D\uDE00", -20_000, -10_000, new byte[0]);
    assertThat(WireCodec.decode(WireCodec.encode(p))).isEqualTo(p);
  }

  @Test
  void shouldThrowOnlyWireFormatExceptionWhenEncodingsAreMutated() {
    byte[][] seeds = {
      WireCodec.encode(PARTIAL),
      WireCodec.encode(WATERMARK),
      WireCodec.encode(SESSION_PARTIAL),
      HexFormat.of().parseHex(PARTIAL_V1_HEX)
    };
    Random random = new Random(7);
    int decoded = 0;
    for (int i = 0; i < 20_000; i++) {
      byte[] b = seeds[i % seeds.length].clone();
      switch (random.nextInt(4)) {
        case 0:
          b[random.nextInt(b.length)] = (byte) random.nextInt(256);
          break;
        case 1:
          b = Arrays.copyOf(b, random.nextInt(b.length));
          break;
        case 2:
          b = Arrays.copyOf(b, b.length + 1 + random.nextInt(8));
          break;
        default:
          for (int k = 0; k < 4; k++) {
            b[random.nextInt(b.length)] = (byte) random.nextInt(256);
          }
      }
      try {
        assertThat(WireCodec.decode(b)).isNotNull();
        decoded++;
      } catch (WireFormatException expected) {
        assertThat(expected).hasMessageNotContaining("null");
      }
    }
    assertThat(decoded).isPositive();
  }

  @Test
  void shouldRejectMalformedInputWithAClearMessage() {
    assertThatThrownBy(() -> WireCodec.decode(null)).isInstanceOf(WireFormatException.class);
    assertThatThrownBy(() -> WireCodec.decode(new byte[] {1}))
        .isInstanceOf(WireFormatException.class)
        .hasMessageContaining("truncated header");
    assertThatThrownBy(() -> WireCodec.decode(new byte[] {9, 1}))
        .isInstanceOf(WireFormatException.class)
        .hasMessageContaining("unsupported format version 9");
    assertThatThrownBy(() -> WireCodec.decode(new byte[] {1, 5}))
        .isInstanceOf(WireFormatException.class)
        .hasMessageContaining("unknown type tag 5");
    byte[] hugeKey = HexFormat.of().parseHex(PARTIAL_V1_HEX);
    hugeKey[38] = 0x7f;
    assertThatThrownBy(() -> WireCodec.decode(hugeKey))
        .isInstanceOf(WireFormatException.class)
        .hasMessageContaining("key length");
    byte[] longAggregate = HexFormat.of().parseHex(PARTIAL_V1_HEX);
    longAggregate[49] = 0x7f;
    assertThatThrownBy(() -> WireCodec.decode(longAggregate))
        .isInstanceOf(WireFormatException.class)
        .hasMessageContaining("aggregate length");
    byte[] badUtf8 = HexFormat.of().parseHex(PARTIAL_V1_HEX);
    badUtf8[42] = (byte) 0xC3;
    badUtf8[43] = 0x28;
    assertThatThrownBy(() -> WireCodec.decode(badUtf8))
        .isInstanceOf(WireFormatException.class)
        .hasMessageContaining("UTF-8");
    byte[] badWindow = HexFormat.of().parseHex(PARTIAL_V1_HEX);
    badWindow[30] = (byte) 0x80; // sliceEndMs negative, before sliceStartMs
    assertThatThrownBy(() -> WireCodec.decode(badWindow))
        .isInstanceOf(WireFormatException.class)
        .hasMessageContaining("sliceEndMs");
    byte[] badFlags = HexFormat.of().parseHex(WATERMARK_V2_HEX);
    badFlags[22] = 2;
    assertThatThrownBy(() -> WireCodec.decode(badFlags))
        .isInstanceOf(WireFormatException.class)
        .hasMessageContaining("flags");
    byte[] badShape = HexFormat.of().parseHex(SESSION_PARTIAL_V2_HEX);
    badShape[54] = 9;
    assertThatThrownBy(() -> WireCodec.decode(badShape))
        .isInstanceOf(WireFormatException.class)
        .hasMessageContaining("unknown window shape 9");
    byte[] badExtent = HexFormat.of().parseHex(SESSION_PARTIAL_V2_HEX);
    badExtent[46] = 0x7f; // lastEventMs after the slice end
    assertThatThrownBy(() -> WireCodec.decode(badExtent))
        .isInstanceOf(WireFormatException.class)
        .hasMessageContaining("lastEventMs");
    byte[] hugeDimension = HexFormat.of().parseHex(SESSION_PARTIAL_V2_HEX);
    hugeDimension[72] = 0x7f;
    assertThatThrownBy(() -> WireCodec.decode(hugeDimension))
        .isInstanceOf(WireFormatException.class)
        .hasMessageContaining("dimension length");
    byte[] badGap = HexFormat.of().parseHex(SESSION_PARTIAL_V2_HEX);
    Arrays.fill(badGap, 55, 63, (byte) 0);
    assertThatThrownBy(() -> WireCodec.decode(badGap))
        .isInstanceOf(WireFormatException.class)
        .hasMessageContaining("gapMs");
    byte[] badFlagsV3 = HexFormat.of().parseHex(WATERMARK_HEX);
    badFlagsV3[38] = 4;
    assertThatThrownBy(() -> WireCodec.decode(badFlagsV3))
        .isInstanceOf(WireFormatException.class)
        .hasMessageContaining("flags");
    byte[] badClose = HexFormat.of().parseHex(WATERMARK_HEX);
    badClose[30] = (byte) 0x80; // closeMs negative, before the watermark
    assertThatThrownBy(() -> WireCodec.decode(badClose))
        .isInstanceOf(WireFormatException.class)
        .hasMessageContaining("closeMs");
    byte[] badFirstWindow = HexFormat.of().parseHex(PARTIAL_HEX);
    Arrays.fill(badFirstWindow, 46, 54, (byte) 0); // first window end before the slice end
    assertThatThrownBy(() -> WireCodec.decode(badFirstWindow))
        .isInstanceOf(WireFormatException.class)
        .hasMessageContaining("firstWindowEndMs");
    byte[] badSeq = HexFormat.of().parseHex(PARTIAL_HEX);
    badSeq[14] = (byte) 0x80; // seq below -1
    assertThatThrownBy(() -> WireCodec.decode(badSeq))
        .isInstanceOf(WireFormatException.class)
        .hasMessageContaining("seq");
  }

  @Test
  void shouldCompareByContentAndValidateFields() {
    Partial copy =
        new Partial(3, 7, 42, "ad42", 1_700_000_000_000L, 1_700_000_010_000L, new byte[] {1, 2, 3});
    assertThat(copy).isEqualTo(PARTIAL).hasSameHashCodeAs(PARTIAL);
    assertThat(copy.toString()).contains("ad42", "3 bytes");
    assertThat(
            new Partial(3, 7, 42, "ad42", 1_700_000_000_000L, 1_700_000_010_000L, new byte[] {1}))
        .isNotEqualTo(PARTIAL);
    assertThatThrownBy(() -> new Partial(-1, 0, 0, "k", 0, 1, new byte[0]))
        .hasMessage("sourcePartition must be >= 0, was -1");
    assertThatThrownBy(() -> new Partial(0, -1, 0, "k", 0, 1, new byte[0]))
        .hasMessage("epoch must be >= 0, was -1");
    assertThatThrownBy(() -> new Partial(0, 0, -1, "k", 0, 1, new byte[0]))
        .hasMessage("version must be >= 0, was -1");
    assertThatThrownBy(() -> new Partial(0, 0, 0, "", 0, 1, new byte[0]))
        .hasMessage("key must be non-empty, was ''");
    assertThatThrownBy(() -> new Partial(0, 0, 0, "k", 5, 5, new byte[0]))
        .hasMessage("sliceEndMs must be > sliceStartMs (5), was 5");
    assertThatThrownBy(() -> new Watermark(-2, 0, 0, false))
        .hasMessage("sourcePartition must be >= 0, was -2");
    assertThatThrownBy(
            () -> WireCodec.encode(new Partial(0, 0, 0, "k".repeat(70_000), 0, 1, new byte[0])))
        .hasMessageContaining("key must be at most 65536 UTF-8 bytes, was 70000");
  }

  private static boolean wellFormed(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
          return false;
        }
        i++;
      } else if (Character.isLowSurrogate(c)) {
        return false;
      }
    }
    return true;
  }
}

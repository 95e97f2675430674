package dev.skewer.sketches;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skewer.sketches.Events.Event;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class AggregateCodecTest {

  static SketchSpec spec(int choice) {
    return switch (choice) {
      case 0 -> SketchSpec.countsOnly(3);
      case 1 -> Events.smallSpec(2, 6);
      case 2 -> SketchSpec.countsOnly(1).withDistinct(6, 12).withQuantiles(10);
      case 3 -> SketchSpec.countsOnly(0).withFrequencies(0.05, 0.05, 3);
      default -> SketchSpec.countsOnly(1).withDistinct().withFrequencies().withQuantiles();
    };
  }

  @Property(tries = 120)
  void shouldKeepEveryEstimateWhenRoundTripped(
      @ForAll @LongRange(min = 0, max = 1_000_000) long seed,
      @ForAll @IntRange(min = 0, max = 2500) int length,
      @ForAll @IntRange(min = 0, max = 4) int specChoice,
      @ForAll @IntRange(min = 1, max = 5000) int alphabet) {
    // given
    SketchSpec spec = spec(specChoice);
    List<Event> events = Events.stream(seed, length, spec, alphabet, alphabet);
    Aggregate original = Events.aggregate(spec, events);

    // when
    byte[] bytes = AggregateCodec.encode(original);
    Aggregate decoded = AggregateCodec.decode(bytes);

    // then
    assertThat(AggregateCodec.encode(original)).as("deterministic").isEqualTo(bytes);
    assertThat(AggregateCodec.encode(decoded)).as("canonical").isEqualTo(bytes);
    assertSameEstimates(decoded, original, events);
  }

  @Property(tries = 40)
  void shouldContinueIdenticallyWhenRestoredMidStream(
      @ForAll @LongRange(min = 0, max = 1_000_000) long seed,
      @ForAll @IntRange(min = 0, max = 3000) int length,
      @ForAll @IntRange(min = 0, max = 4) int specChoice) {
    // given: a snapshot taken mid-stream
    SketchSpec spec = spec(specChoice);
    List<Event> events = Events.stream(seed, length, spec, 2000, 300);
    int cut = length / 2;
    Aggregate original = Events.aggregate(spec, events.subList(0, cut));
    Aggregate restored = AggregateCodec.decode(AggregateCodec.encode(original));

    // when: both continue with the rest of the stream
    for (Event e : events.subList(cut, length)) {
      e.applyTo(original);
      e.applyTo(restored);
    }

    // then: same bytes, hence the same results
    assertThat(AggregateCodec.encode(restored)).isEqualTo(AggregateCodec.encode(original));
  }

  @Test
  void shouldEncodeEqualStatesToEqualBytesWhenItemsArriveInDifferentOrders() {
    SketchSpec spec = Events.smallSpec(1, 10);
    Aggregate a = Aggregate.empty(spec);
    Aggregate b = Aggregate.empty(spec);
    String[] items = {"x", "y", "z", "x", "w"};
    for (int i = 0; i < items.length; i++) {
      a.update(new double[] {i}, items[i], items[i], i);
      int j = items.length - 1 - i;
      b.update(new double[] {j}, items[j], items[j], j);
    }
    assertThat(AggregateCodec.encode(a)).isEqualTo(AggregateCodec.encode(b));
  }

  @Test
  void shouldDecodeGoldenEncodingsToTheRecordedEstimates() throws IOException {
    for (String line : golden("/golden-v2.txt")) {
      String[] f = line.split("\\|", -1);
      byte[] bytes = HexFormat.of().parseHex(f[1]);
      Aggregate a = AggregateCodec.decode(bytes);
      assertThat(Golden.describe(a)).as(f[0]).isEqualTo(f[2]);
      assertThat(AggregateCodec.encode(a)).as(f[0]).isEqualTo(bytes);
    }
  }

  @Test
  void shouldStillDecodeFormatVersion1AndReencodeItInTheCurrentVersion() throws IOException {
    for (String line : golden("/golden-v1.txt")) {
      String[] f = line.split("\\|", -1);
      byte[] bytes = HexFormat.of().parseHex(f[1]);
      Aggregate a = AggregateCodec.decode(bytes);
      assertThat(Golden.describe(a)).as(f[0]).isEqualTo(f[2]);
      byte[] again = AggregateCodec.encode(a);
      assertThat(again[0]).isEqualTo((byte) AggregateCodec.FORMAT_VERSION);
      Aggregate reread = AggregateCodec.decode(again);
      assertThat(Golden.describe(reread)).as(f[0]).isEqualTo(f[2]);
      assertThat(AggregateCodec.encode(reread)).as(f[0]).isEqualTo(again);
      if (!a.spec().frequencies() || a.frequencySketch().isExact()) {
        // without heavy-hitter candidates the body is the same bytes
        assertThat(Arrays.copyOfRange(again, 1, again.length))
            .as(f[0])
            .isEqualTo(Arrays.copyOfRange(bytes, 1, bytes.length));
      }
    }
  }

  private List<String> golden(String resource) throws IOException {
    List<String> lines;
    try (InputStream in = getClass().getResourceAsStream(resource)) {
      lines =
          new String(in.readAllBytes(), StandardCharsets.UTF_8)
              .lines()
              .filter(l -> !l.isBlank() && !l.startsWith("#"))
              .toList();
    }
    assertThat(lines).hasSizeGreaterThanOrEqualTo(3);
    return lines;
  }

  @Test
  void shouldRefuseHugeDeclaredSizesWithoutAllocating() {
    // a distinct-only encoding declaring an HLL of 2^31 - 1 bytes in a 40-byte input
    byte[] valid = AggregateCodec.encode(Aggregate.empty(SketchSpec.countsOnly(0).withDistinct()));
    int hllLengthAt = valid.length - 1 - 8; // the HLL section is "len=8, 8 bytes" at the end
    assertThat(valid[hllLengthAt]).isEqualTo((byte) 8);
    byte[] evil = Arrays.copyOf(valid, hllLengthAt + 5);
    evil[hllLengthAt] = (byte) 0xFF;
    evil[hllLengthAt + 1] = (byte) 0xFF;
    evil[hllLengthAt + 2] = (byte) 0xFF;
    evil[hllLengthAt + 3] = (byte) 0xFF;
    evil[hllLengthAt + 4] = (byte) 0x07;
    assertThatThrownBy(() -> AggregateCodec.decode(evil))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("HLL bytes");
  }

  @Test
  void shouldRefuseUnknownVersionsTrailingBytesAndBadRanges() {
    byte[] valid = AggregateCodec.encode(Aggregate.empty(SketchSpec.countsOnly(1)));
    byte[] v2 = valid.clone();
    v2[0] = 3;
    assertThatThrownBy(() -> AggregateCodec.decode(v2))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("version 3");
    byte[] trailing = Arrays.copyOf(valid, valid.length + 1);
    assertThatThrownBy(() -> AggregateCodec.decode(trailing))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("trailing");
    assertThatThrownBy(() -> AggregateCodec.decode(new byte[0])).isInstanceOf(CodecException.class);
    assertThatThrownBy(() -> AggregateCodec.decode(valid, 3, valid.length))
        .isInstanceOf(CodecException.class);
    assertThat(
            AggregateCodec.decode(Arrays.copyOf(valid, valid.length + 3), 0, valid.length).count())
        .isZero();
  }

  static void assertSameEstimates(Aggregate decoded, Aggregate original, List<Event> events) {
    assertThat(decoded.spec()).isEqualTo(original.spec());
    assertThat(decoded.count()).isEqualTo(original.count());
    SketchSpec spec = original.spec();
    for (int f = 0; f < spec.numericFields(); f++) {
      assertThat(decoded.valueCount(f)).isEqualTo(original.valueCount(f));
      assertThat(decoded.sum(f)).isEqualTo(original.sum(f));
      assertThat(decoded.min(f)).isEqualTo(original.min(f));
      assertThat(decoded.max(f)).isEqualTo(original.max(f));
    }
    if (spec.distinct()) {
      assertThat(decoded.distinct()).isEqualTo(original.distinct());
    }
    if (spec.frequencies()) {
      assertThat(decoded.heavyHitters(100)).isEqualTo(original.heavyHitters(100));
      for (Event e : events) {
        if (e.frequentItem() != null) {
          assertThat(decoded.frequency(e.frequentItem()))
              .isEqualTo(original.frequency(e.frequentItem()));
        }
      }
    }
    if (spec.quantiles()) {
      for (double q : new double[] {0, 0.01, 0.25, 0.5, 0.75, 0.99, 1}) {
        assertThat(decoded.quantile(q)).isEqualTo(original.quantile(q));
      }
    }
  }
}

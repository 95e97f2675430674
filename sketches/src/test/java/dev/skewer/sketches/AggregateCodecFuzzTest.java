package dev.skewer.sketches;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Mutates and truncates valid encodings: decoding must yield a valid, usable Aggregate (whose
 * encoding is the input again, or for an older version a canonical current one) or a {@link
 * CodecException}, never another exception, and without allocating more than a bounded amount (a
 * forged length or count must be refused before it is allocated). The bound is on bytes, not on
 * time: a time limit fails whenever the machine is busy.
 */
class AggregateCodecFuzzTest {
  private static final int MUTATIONS = 120_000;

  /**
   * Far above any valid aggregate of the corpus (largest: a few hundred KB), far below a forged
   * count's.
   */
  private static final long MAX_DECODE_ALLOCATION = 16L << 20;

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  @Test
  void shouldOnlyYieldAggregatesOrCodecExceptionsWhenBytesAreMutated() {
    // given: a corpus of valid encodings covering every section and mode
    List<byte[]> corpus = new ArrayList<>();
    long seed = 7;
    for (int choice = 0; choice <= 3; choice++) {
      SketchSpec spec = AggregateCodecTest.spec(choice);
      for (int length : new int[] {0, 1, 5, 60, 400}) {
        corpus.add(
            AggregateCodec.encode(
                Events.aggregate(spec, Events.stream(seed++, length, spec, 300, 12))));
      }
    }
    Random r = new Random(20240601);
    int valid = 0;
    int refused = 0;
    long largestAllocation = 0;

    // when
    for (int i = 0; i < MUTATIONS; i++) {
      byte[] input = mutate(corpus.get(r.nextInt(corpus.size())), r);
      long allocatedBefore = THREADS.getCurrentThreadAllocatedBytes();
      Aggregate decoded;
      try {
        decoded = AggregateCodec.decode(input);
      } catch (CodecException expected) {
        refused++;
        largestAllocation =
            Math.max(largestAllocation, THREADS.getCurrentThreadAllocatedBytes() - allocatedBefore);
        continue;
      } catch (RuntimeException | OutOfMemoryError | StackOverflowError e) {
        throw new AssertionError("non-codec exception for input " + hex(input), e);
      }
      largestAllocation =
          Math.max(largestAllocation, THREADS.getCurrentThreadAllocatedBytes() - allocatedBefore);
      valid++;
      // then: a decoded aggregate is canonical and usable
      try {
        byte[] again = AggregateCodec.encode(decoded);
        if (input[0] == AggregateCodec.FORMAT_VERSION) {
          assertThat(again).isEqualTo(input);
        } else { // an older version is read and written in the current one, canonically
          assertThat(AggregateCodec.encode(AggregateCodec.decode(again))).isEqualTo(again);
        }
        exercise(decoded);
      } catch (RuntimeException | AssertionError e) {
        fail("decoded aggregate misbehaves for input " + hex(input), e);
      }
    }

    assertThat(valid).as("mutations that stay valid").isGreaterThan(100);
    assertThat(refused).as("mutations refused").isGreaterThan(MUTATIONS / 2);
    assertThat(largestAllocation)
        .as("most bytes one decode allocated")
        .isLessThan(MAX_DECODE_ALLOCATION);
  }

  private static void exercise(Aggregate a) {
    SketchSpec spec = a.spec();
    if (spec.distinct()) {
      a.distinct();
    }
    if (spec.frequencies()) {
      a.heavyHitters(10);
      a.frequency("i1");
    }
    if (spec.quantiles()) {
      a.quantile(0.5);
      a.quantile(0.999);
    }
    Aggregate merged = a.copy();
    merged.merge(a);
    merged.update(new double[spec.numericFields()], "u1", "i1", 1.0);
    AggregateCodec.decode(AggregateCodec.encode(merged));
  }

  private static byte[] mutate(byte[] original, Random r) {
    byte[] b = original.clone();
    switch (r.nextInt(7)) {
      case 0 -> { // flip one bit
        int i = r.nextInt(b.length);
        b[i] ^= (byte) (1 << r.nextInt(8));
      }
      case 1 -> { // overwrite a few bytes
        for (int k = 1 + r.nextInt(3); k > 0; k--) {
          b[r.nextInt(b.length)] = (byte) r.nextInt(256);
        }
      }
      case 2 -> b = Arrays.copyOf(b, r.nextInt(b.length)); // truncate
      case 3 -> { // insert a byte
        int i = r.nextInt(b.length + 1);
        byte[] c = new byte[b.length + 1];
        System.arraycopy(b, 0, c, 0, i);
        c[i] = (byte) r.nextInt(256);
        System.arraycopy(b, i, c, i + 1, b.length - i);
        b = c;
      }
      case 4 -> { // delete a byte
        int i = r.nextInt(b.length);
        byte[] c = new byte[b.length - 1];
        System.arraycopy(b, 0, c, 0, i);
        System.arraycopy(b, i + 1, c, i, b.length - i - 1);
        b = c;
      }
      case 5 -> { // a huge varint where a length or count may be
        int i = r.nextInt(b.length);
        for (int k = i; k < Math.min(b.length, i + 4); k++) {
          b[k] = (byte) 0xFF;
        }
      }
      default -> { // small arithmetic change, most likely to stay valid
        int i = r.nextInt(b.length);
        b[i] += (byte) (r.nextBoolean() ? 1 : -1);
      }
    }
    return b;
  }

  private static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }
}

package dev.skewer.coordinator.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ResultHandoffTest {

  private final ResultHandoff handoff = new ResultHandoff(ResultHandoff.DEFAULT_MAX_BYTES);

  @Test
  void theViewTakesAResultAtItsOffsetWithItsBytesOnce() {
    StoredResult r = result("a", "{\"a\":1}");
    handoff.offer(2, 40, r);

    assertThat(handoff.take(2, 40, bytes("{\"a\":1}"))).isSameAs(r);
    assertThat(handoff.take(2, 40, bytes("{\"a\":1}"))).isNull(); // taken: parsed if read again
    assertThat(handoff.taken()).isEqualTo(1);
    assertThat(handoff.bytes()).isZero();
  }

  @Test
  void anythingButTheSameRecordIsParsed() {
    handoff.offer(2, 40, result("a", "{\"a\":1}"));

    assertThat(handoff.take(1, 40, bytes("{\"a\":1}"))).isNull(); // another partition
    assertThat(handoff.take(2, 41, bytes("{\"a\":1}"))).isNull(); // another offset
    handoff.offer(2, 50, result("b", "{\"b\":1}"));
    assertThat(handoff.take(2, 50, bytes("{\"b\":2}"))).isNull(); // other bytes at that offset
    assertThat(handoff.taken()).isZero();
    assertThat(handoff.bytes()).isZero();
  }

  @Test
  void whatTheViewReadPastIsDropped() {
    // an aborted transaction's records, or one acknowledged after the view had read it
    handoff.offer(0, 10, result("a", "{\"a\":1}"));
    handoff.offer(0, 11, result("b", "{\"b\":1}"));
    StoredResult c = result("c", "{\"c\":1}");
    handoff.offer(0, 14, c);
    handoff.offer(1, 3, result("d", "{\"d\":1}"));

    assertThat(handoff.take(0, 14, bytes("{\"c\":1}"))).isSameAs(c);

    assertThat(handoff.take(0, 10, bytes("{\"a\":1}"))).isNull();
    // only the other partition's result is left
    assertThat(handoff.bytes()).isEqualTo(result("d", "{\"d\":1}").estimatedBytes());
  }

  @Test
  void refusesOffersBeyondItsBound() {
    StoredResult r = result("a", "{\"a\":1}");
    ResultHandoff small = new ResultHandoff(2 * r.estimatedBytes());
    small.offer(0, 0, r);
    small.offer(0, 1, r);
    small.offer(0, 2, r);

    assertThat(small.refused()).isEqualTo(1);
    assertThat(small.bytes()).isEqualTo(2 * r.estimatedBytes());
    assertThat(small.take(0, 2, r.envelope())).isNull();
    assertThat(small.bytes()).isZero();
    assertThatThrownBy(() -> new ResultHandoff(0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void offersAcknowledgedOutOfOrderWaitInOffsetOrder() {
    // two producers writing one partition: their acknowledgements interleave
    StoredResult a = result("a", "{\"a\":1}");
    StoredResult b = result("b", "{\"b\":1}");
    StoredResult c = result("c", "{\"c\":1}");
    handoff.offer(0, 12, c);
    handoff.offer(0, 10, a);
    handoff.offer(0, 11, b);

    assertThat(handoff.take(0, 10, a.envelope())).isSameAs(a);
    assertThat(handoff.take(0, 11, b.envelope())).isSameAs(b);
    assertThat(handoff.take(0, 12, c.envelope())).isSameAs(c);
    assertThat(handoff.bytes()).isZero();
  }

  /**
   * Random offers (mostly in offset order, some interleaved, some repeated) and takes against the
   * rule the class states, kept in a sorted map: what a take returns, and the bytes held.
   */
  @Test
  void agreesWithASortedMapOverRandomOffersAndTakes() {
    for (int seed = 0; seed < 200; seed++) {
      Random random = new Random(seed);
      StoredResult[] pool = new StoredResult[8];
      for (int i = 0; i < pool.length; i++) {
        pool[i] = result("k" + i, "{\"k\":" + i + "}");
      }
      ResultHandoff subject = new ResultHandoff(Long.MAX_VALUE);
      Map<Integer, TreeMap<Long, StoredResult>> model = new HashMap<>();
      long[] nextOffer = new long[3];
      long[] nextRead = new long[3];
      for (int step = 0; step < 2_000; step++) {
        int partition = random.nextInt(3);
        if (random.nextInt(3) > 0) {
          long offset = nextOffer[partition]++;
          if (random.nextInt(10) == 0) {
            offset = Math.max(0, offset - random.nextInt(300)); // interleaved, or written again
          }
          StoredResult r = pool[random.nextInt(pool.length)];
          subject.offer(partition, offset, r);
          model.computeIfAbsent(partition, p -> new TreeMap<>()).put(offset, r);
        } else {
          long offset = nextRead[partition];
          nextRead[partition] += 1 + random.nextInt(3);
          StoredResult r = pool[random.nextInt(pool.length)];
          byte[] value = random.nextInt(5) == 0 ? pool[0].envelope() : r.envelope();
          TreeMap<Long, StoredResult> held = model.get(partition);
          StoredResult expected = null;
          if (held != null) {
            held.headMap(offset).clear();
            StoredResult at = held.remove(offset);
            expected = at != null && Arrays.equals(at.envelope(), value) ? at : null;
          }
          assertThat(subject.take(partition, offset, value))
              .as("seed %d step %d", seed, step)
              .isSameAs(expected);
        }
        long heldBytes =
            model.values().stream()
                .flatMap(m -> m.values().stream())
                .mapToLong(StoredResult::estimatedBytes)
                .sum();
        assertThat(subject.bytes()).as("seed %d step %d", seed, step).isEqualTo(heldBytes);
      }
    }
  }

  private static StoredResult result(String key, String json) {
    return new StoredResult(
        key,
        0,
        10,
        0,
        1,
        new double[] {1.5},
        Double.NaN,
        false,
        StoredResult.NO_PROVENANCE,
        StoredResult.NO_PROVENANCE,
        bytes(json));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}

package dev.skewer.coordinator.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
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

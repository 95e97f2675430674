package dev.skewer.reconcile.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SortRecordTest {

  @Test
  void shouldRoundTripAnEventIncludingNullsAndLoneSurrogates() {
    SortRecord.Writer w = new SortRecord.Writer();
    String lone = "u\uD800x";
    byte[] r =
        w.event(
            "ad42",
            3,
            77L,
            1_700_000_000_123L,
            1_700_000_000_000L,
            new double[] {1.5, Double.NaN},
            lone,
            null,
            9.25,
            new String[] {"g1", null});

    SortRecord.Reader reader = new SortRecord.Reader().read(r);
    SortRecord.Event e = new SortRecord.Event(2, 2);
    assertThat(reader.key()).isEqualTo("ad42");
    assertThat(reader.type()).isEqualTo(SortRecord.EVENT);
    assertThat(reader.partition()).isEqualTo(3);
    assertThat(reader.offset()).isEqualTo(77L);
    assertThat(reader.eventTimeMs()).isEqualTo(1_700_000_000_123L);
    reader.event(e);
    assertThat(e.watermarkMs).isEqualTo(1_700_000_000_000L);
    assertThat(e.numeric[0]).isEqualTo(1.5);
    assertThat(e.numeric[1]).isNaN();
    assertThat(e.distinct).isEqualTo(lone);
    assertThat(e.frequency).isNull();
    assertThat(e.quantile).isEqualTo(9.25);
    assertThat(e.dimensions).containsExactly("g1", null);
  }

  @Test
  void shouldOrderByKeyThenTypeThenPartitionThenOffset() {
    SortRecord.Writer w = new SortRecord.Writer();
    byte[] resultB = w.result("b", 0, 5, "{}".getBytes());
    byte[] eventA2 =
        w.event("a", 2, 1, 0, Long.MIN_VALUE, new double[0], null, null, Double.NaN, new String[0]);
    byte[] eventA1late =
        w.event("a", 1, 9, 0, Long.MIN_VALUE, new double[0], null, null, Double.NaN, new String[0]);
    byte[] eventA1 =
        w.event("a", 1, 3, 0, Long.MIN_VALUE, new double[0], null, null, Double.NaN, new String[0]);
    byte[] sideA = w.side("a", 3, 0, 0, SortRecord.SIDE_LATE);
    byte[] resultA = w.result("a", 7, 0, "{}".getBytes());
    List<byte[]> all =
        new ArrayList<>(List.of(resultB, eventA2, eventA1late, eventA1, sideA, resultA));
    all.sort(SortRecord.ORDER);
    assertThat(all).containsExactly(resultA, sideA, eventA1, eventA1late, eventA2, resultB);
    assertThat(new SortRecord.Reader().read(eventA1).sameKey(eventA2)).isTrue();
    assertThat(new SortRecord.Reader().read(eventA1).sameKey(resultB)).isFalse();
  }
}

package dev.skewer.reconcile.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.core.event.DlqReason;
import org.junit.jupiter.api.Test;

class SideIndexTest {

  @Test
  void shouldFindEveryRecordOfAnOffsetIncludingDuplicates() {
    SideIndex index = new SideIndex();
    index.add(0, 5, SideIndex.LATE);
    index.add(0, 7, SideIndex.dlqCode(DlqReason.NOT_JSON));
    index.add(0, 5, SideIndex.LATE);
    index.add(1, 5, SideIndex.dlqCode(null));
    index.add(0, 6, SideIndex.dlqCode(DlqReason.FUTURE_TIME));
    index.add(0, 6, SideIndex.LATE);
    index.seal();

    assertThat(index.lookup(0, 5)).containsExactly(SideIndex.LATE, SideIndex.LATE);
    assertThat(index.lookup(0, 6))
        .containsExactly(SideIndex.LATE, SideIndex.dlqCode(DlqReason.FUTURE_TIME));
    assertThat(SideIndex.reason(index.lookup(0, 7)[0])).isEqualTo(DlqReason.NOT_JSON);
    assertThat(index.lookup(1, 5)).containsExactly(SideIndex.DLQ_UNKNOWN);
    assertThat(SideIndex.reason(SideIndex.DLQ_UNKNOWN)).isNull();
    assertThat(index.lookup(0, 8)).isEmpty();
    assertThat(index.lookup(2, 5)).isEmpty();
    assertThat(index.size()).isEqualTo(6);
  }
}

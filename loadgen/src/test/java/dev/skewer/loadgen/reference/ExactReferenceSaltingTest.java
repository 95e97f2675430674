package dev.skewer.loadgen.reference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skewer.core.hotkey.HotKey;
import dev.skewer.core.hotkey.HotKeyTable;
import dev.skewer.core.hotkey.SaltRouter;
import dev.skewer.loadgen.partition.EventPartitioner;
import dev.skewer.loadgen.reference.ExactReference.Route;
import dev.skewer.loadgen.workload.EventKind;
import dev.skewer.loadgen.workload.GeneratedEvent;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ExactReferenceSaltingTest {

  private static GeneratedEvent event(String key, long ts) {
    return GeneratedEvent.of(key, "u1", 1.0, ts, EventKind.NORMAL);
  }

  @Test
  void shouldTrackWatermarksOnThePartitionTheProducerChose() {
    // given: a hot key whose salt 1 lands one partition after its bare partition
    int p = EventPartitioner.partition("hot", 4);
    ExactReference ref = new ExactReference(10_000, 2_000, 0, 4, null);
    // when: salt 1 pushes partition p+1's watermark far ahead
    ref.accept(event("hot", 50_000), (p + 1) % 4);
    // then: an old event on the bare partition is on time, on p+1 it is late
    assertThat(ref.accept(event("hot", 1_000), p)).isEqualTo(Route.WINDOW);
    assertThat(ref.accept(event("hot", 1_000), (p + 1) % 4)).isEqualTo(Route.LATE);
    // and the aggregation key stays the bare key
    assertThat(ref.windows().keySet()).extracting(WindowKey::key).containsOnly("hot");
  }

  @Test
  void shouldAgreeWithTheDefaultPartitionWhenNotSalted() {
    ExactReference a = new ExactReference(10_000, 2_000, 0, 4, null);
    ExactReference b = new ExactReference(10_000, 2_000, 0, 4, null);
    for (int i = 0; i < 200; i++) {
      GeneratedEvent e = event("k" + (i % 13), 1_000L * ((i * 7919) % 97));
      assertThat(a.accept(e)).isEqualTo(b.accept(e, EventPartitioner.partition(e.recordKey(), 4)));
    }
    assertThat(a.late()).isEqualTo(b.late());
    // the router agrees with the default partition for cold keys
    SaltRouter router = SaltRouter.withDefaultSeparator();
    HotKeyTable table = HotKeyTable.of(new HotKey("ad0", 4, 0));
    assertThat(router.partition(table, "k3".getBytes(StandardCharsets.UTF_8), 4))
        .isEqualTo(EventPartitioner.partition("k3", 4));
  }

  @Test
  void shouldRejectAPartitionOutOfRange() {
    ExactReference ref = new ExactReference(10_000, 2_000, 0, 4, null);
    assertThatThrownBy(() -> ref.accept(event("a", 1), 4)).hasMessageContaining("partition");
  }
}

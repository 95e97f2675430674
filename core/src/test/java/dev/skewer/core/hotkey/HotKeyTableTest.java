package dev.skewer.core.hotkey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HotKeyTableTest {

  @Test
  void shouldFindEveryKeyByStringAndByBytesAndNothingElse() {
    // given
    List<HotKey> entries = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      entries.add(new HotKey("ad" + i, 2 + i % 7, 1_000 + i));
    }
    entries.add(new HotKey("ünï€ode", 3, 5));
    HotKeyTable table = HotKeyTable.of(entries);
    // then
    for (HotKey h : entries) {
      assertThat(table.get(h.key())).isEqualTo(h);
      assertThat(table.fanout(h.key())).isEqualTo(h.fanout());
      byte[] b = ("xx" + h.key() + "#7").getBytes(StandardCharsets.UTF_8);
      int len = b.length - 4;
      assertThat(table.lookup(b, 2, len)).isEqualTo(h);
    }
    assertThat(table.get("ad300")).isNull();
    assertThat(table.fanout("ad300")).isEqualTo(1);
    byte[] cold = "ad3000".getBytes(StandardCharsets.UTF_8);
    assertThat(table.lookup(cold, 0, cold.length)).isNull();
    assertThat(table.lookup(cold, 0, 5)).isNull(); // "ad300": a prefix, not a key
    assertThat(table.entries()).extracting(HotKey::key).isSorted();
  }

  @Test
  void shouldReportUpsertsAndRemovalsBetweenTables() {
    HotKeyTable before = HotKeyTable.of(new HotKey("a", 2, 1), new HotKey("b", 4, 2));
    HotKeyTable after = before.with(new HotKey("b", 8, 2)).with(new HotKey("c", 2, 9)).without("a");

    HotKeyTable.Changes changes = after.changesSince(before);

    assertThat(changes.upserted()).containsExactly(new HotKey("b", 8, 2), new HotKey("c", 2, 9));
    assertThat(changes.removed()).containsExactly("a");
    assertThat(after.changesSince(after).isEmpty()).isTrue();
    assertThat(HotKeyTable.EMPTY.changesSince(after).removed()).containsExactly("b", "c");
  }

  @Test
  void shouldRejectDuplicateKeysAndInvalidEntries() {
    assertThatThrownBy(() -> HotKeyTable.of(new HotKey("a", 2, 1), new HotKey("a", 3, 1)))
        .hasMessageContaining("duplicate key")
        .hasMessageContaining("'a'");
    assertThatThrownBy(() -> new HotKey("a", 1, 0)).hasMessageContaining("fanout");
    assertThatThrownBy(() -> new HotKey("", 2, 0)).hasMessageContaining("key");
    assertThatThrownBy(() -> new HotKey("a", 2, -1)).hasMessageContaining("sinceMs");
  }

  @Test
  void shouldCompareByEntries() {
    assertThat(HotKeyTable.of(new HotKey("a", 2, 1), new HotKey("b", 3, 1)))
        .isEqualTo(HotKeyTable.of(new HotKey("b", 3, 1), new HotKey("a", 2, 1)));
    assertThat(HotKeyTable.of(List.of())).isSameAs(HotKeyTable.EMPTY);
  }
}

package dev.skewer.core.hotkey;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.AlphaChars;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.StringLength;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

class SaltRouterTest {

  private final SaltRouter router = SaltRouter.withDefaultSeparator();

  private static int kafkaDefault(String key, int partitions) {
    return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
  }

  @Property
  void shouldPlaceSaltZeroWhereTheBareKeyLandsAndSubKeysOnDistinctPartitions(
      @ForAll @AlphaChars @StringLength(min = 1, max = 20) String key,
      @ForAll @IntRange(min = 1, max = 64) int partitions,
      @ForAll @IntRange(min = 2, max = 64) int fanout) {
    // given
    HotKeyTable table = HotKeyTable.of(new HotKey(key, fanout, 0));
    // when
    Set<Integer> used = new HashSet<>();
    for (int i = 0; i < fanout; i++) {
      int p = router.partition(table, key, i, partitions);
      used.add(p);
      // then
      assertThat(p).isEqualTo((kafkaDefault(key, partitions) + i) % partitions);
    }
    assertThat(router.partition(table, key, 0, partitions))
        .isEqualTo(kafkaDefault(key, partitions));
    assertThat(used).hasSize(Math.min(fanout, partitions));
  }

  @Property
  void shouldPlaceColdKeysExactlyLikeKafkasDefault(
      @ForAll @StringLength(min = 1, max = 30) String key,
      @ForAll @IntRange(min = 1, max = 64) int partitions) {
    HotKeyTable table = HotKeyTable.of(new HotKey("ad0", 8, 0), new HotKey("x", 3, 0));
    Assume.that(
        !key.equals("ad0") && !key.startsWith("ad0#") && !key.equals("x") && !key.startsWith("x#"));
    byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
    assertThat(router.partition(table, bytes, partitions))
        .isEqualTo(Utils.toPositive(Utils.murmur2(bytes)) % partitions);
    assertThat(router.partition(HotKeyTable.EMPTY, bytes, partitions))
        .isEqualTo(Utils.toPositive(Utils.murmur2(bytes)) % partitions);
  }

  @Test
  void shouldNotMoveTheColdPartWhenTheFanoutRises() {
    for (int f = 2; f <= 8; f++) {
      HotKeyTable table = HotKeyTable.of(new HotKey("ad0", f, 0));
      for (int i = 0; i < f - 1; i++) {
        HotKeyTable raised = HotKeyTable.of(new HotKey("ad0", f + 1, 0));
        assertThat(router.partition(raised, "ad0", i, 8))
            .isEqualTo(router.partition(table, "ad0", i, 8));
      }
    }
  }

  @Test
  void shouldKeepSaltedLookingColdKeysAndUnsaltedHotKeysConsistent() {
    HotKeyTable table = HotKeyTable.of(new HotKey("ad0", 4, 0));
    // a cold key that merely looks salted is not re-routed
    assertThat(router.partition(table, bytes("ad1#3"), 8)).isEqualTo(kafkaDefault("ad1#3", 8));
    // a hot key sent without salt is salt 0
    assertThat(router.partition(table, bytes("ad0"), 8)).isEqualTo(kafkaDefault("ad0", 8));
    // more digits than a salt can have: default
    assertThat(router.partition(table, bytes("ad0#1234567890"), 8))
        .isEqualTo(kafkaDefault("ad0#1234567890", 8));
    // record keys: cold keys are never rewritten
    assertThat(router.recordKey(table, "ad1", 3)).isEqualTo("ad1");
    assertThat(router.recordKey(table, "ad0", 3)).isEqualTo("ad0#3");
  }

  @Test
  void shouldHonourAMultiCharacterSeparator() {
    SaltRouter tilde = new SaltRouter("~~");
    HotKeyTable table = HotKeyTable.of(new HotKey("k", 4, 0));
    assertThat(tilde.partition(table, bytes("k~~2"), 16))
        .isEqualTo((kafkaDefault("k", 16) + 2) % 16);
    assertThat(tilde.partition(table, bytes("k#2"), 16)).isEqualTo(kafkaDefault("k#2", 16));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}

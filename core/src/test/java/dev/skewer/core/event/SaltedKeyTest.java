package dev.skewer.core.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SaltedKeyTest {

  @ParameterizedTest
  @CsvSource({
    "ad42#3, ad42",
    "ad42#15, ad42",
    "ad42#, ad42#",
    "ad#x, ad#x",
    "a#1#2, a#1",
    "ad42, ad42",
    "#3, #3",
    "42, 42",
    "a##3, a#",
    "a#3x, a#3x"
  })
  void shouldStripATrailingSeparatorAndDigits(String raw, String expected) {
    assertThat(SaltedKey.strip(raw, "#")).isEqualTo(expected);
  }

  @ParameterizedTest
  @CsvSource({"ad42::3, ad42", "ad42:3, ad42:3", "a::, a::"})
  void shouldHonourAMultiCharacterSeparator(String raw, String expected) {
    assertThat(SaltedKey.strip(raw, "::")).isEqualTo(expected);
  }

  @ParameterizedTest
  @CsvSource({"ad42, 0, ad42#0", "ad42, 15, ad42#15"})
  void shouldSaltAKey(String key, int salt, String expected) {
    assertThat(SaltedKey.salt(key, salt, "#")).isEqualTo(expected);
  }

  @org.junit.jupiter.api.Test
  void shouldRejectANegativeSalt() {
    assertThatThrownBy(() -> SaltedKey.salt("a", -1, "#"))
        .hasMessageContaining("salt must be >= 0, was -1");
  }

  @Property(tries = 300)
  void shouldStripWhatSaltAdded(
      @ForAll @StringLength(min = 1, max = 20) String key, @ForAll @IntRange(max = 1000) int salt) {
    assertThat(SaltedKey.strip(SaltedKey.salt(key, salt, "#"), "#")).isEqualTo(key);
  }

  @org.junit.jupiter.api.Test
  void shouldReturnTheSameInstanceWhenNothingIsStripped() {
    String k = "plain";
    assertThat(SaltedKey.strip(k, "#")).isSameAs(k);
  }
}

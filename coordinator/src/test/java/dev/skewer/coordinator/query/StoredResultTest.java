package dev.skewer.coordinator.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class StoredResultTest {

  private static final byte[] ENVELOPE =
      "{\"k\":\"é\",\"value\":{},\"provenance\":{\"watermark_ms\":5}}"
          .getBytes(StandardCharsets.UTF_8);

  @Test
  void shouldReadTheProvenanceObjectFromWhereTheEnvelopeHasIt() {
    int from = ENVELOPE.length - "{\"watermark_ms\":5}}".length();

    StoredResult r = result(from, ENVELOPE.length - 1);

    assertThat(r.provenanceText()).isEqualTo("{\"watermark_ms\":5}");
    assertThat(result(StoredResult.NO_PROVENANCE, StoredResult.NO_PROVENANCE).provenanceText())
        .isNull();
  }

  @Test
  void shouldCountTheEnvelopeOnceWhateverItsProvenance() {
    int from = ENVELOPE.length - "{\"watermark_ms\":5}}".length();

    assertThat(result(from, ENVELOPE.length - 1).estimatedBytes())
        .isEqualTo(result(StoredResult.NO_PROVENANCE, StoredResult.NO_PROVENANCE).estimatedBytes())
        .isEqualTo(StoredResult.OVERHEAD_BYTES + 2 + ENVELOPE.length + 8);
  }

  @Test
  void shouldRefuseAProvenanceOutsideTheEnvelope() {
    assertThatThrownBy(() -> result(3, ENVELOPE.length + 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("within the envelope");
    assertThatThrownBy(() -> result(5, 5)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> result(-2, 4)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> result(StoredResult.NO_PROVENANCE, 4))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static StoredResult result(int from, int to) {
    return new StoredResult(
        "k", 0, 10, 0, 1, new double[] {1.5}, Double.NaN, false, from, to, ENVELOPE);
  }
}

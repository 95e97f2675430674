package dev.skewer.core.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class CheckpointManifestTest {

  @Test
  void shouldDecodeWhatItEncodesWithAndWithoutPositions() {
    // given
    Checkpoint cp = new Checkpoint(3, 42, 1_700_000_000_000L, new byte[2500]);
    CheckpointManifest bare = CheckpointManifest.of(cp, 1024);
    CheckpointManifest placed =
        bare.withPositions(
            List.of(new LogPosition(0, 7), new LogPosition(0, 8), new LogPosition(0, 11)));

    // when / then
    assertThat(bare.chunkCount()).isEqualTo(3);
    assertThat(CheckpointManifest.decode(bare.encode())).isEqualTo(bare);
    assertThat(CheckpointManifest.decode(placed.encode())).isEqualTo(placed);
    assertThat(CheckpointManifest.isManifest(placed.encode())).isTrue();
    assertThat(CheckpointManifest.isManifest(cp.encode())).isFalse();
    assertThat(placed.encode()).hasSize(CheckpointManifest.HEADER_BYTES + 3 * 12);
  }

  @Test
  void shouldCutStateIntoChunksWhoseLastIsShorter() {
    CheckpointChunks c = new CheckpointChunks("node/events/3", 2, 99, 2500, 1024);
    assertThat(c.count()).isEqualTo(3);
    assertThat(c.length(2)).isEqualTo(452);
    assertThat(c.mapKey(1)).isEqualTo("node/events/3/2/99/1");
    assertThat(new String(c.recordKey(0))).isEqualTo("chunk/node/events/3/2/99/0");
    assertThat(new CheckpointChunks("a", 1, 1, 0, 1024).count()).isZero();
    assertThat(new CheckpointChunks("a", 1, 1, 2048, 1024).count()).isEqualTo(2);
  }

  @Test
  void shouldRefuseMalformedManifestsWithOneExceptionType() {
    byte[] good =
        CheckpointManifest.of(new Checkpoint(1, 1, 1, new byte[3000]), 1024)
            .withPositions(
                List.of(new LogPosition(0, 1), new LogPosition(0, 2), new LogPosition(0, 3)))
            .encode();
    assertThatThrownBy(() -> CheckpointManifest.decode(Arrays.copyOf(good, 10)))
        .isInstanceOf(CheckpointFormatException.class)
        .hasMessageContaining("shorter than its header");
    assertThatThrownBy(() -> CheckpointManifest.decode(Arrays.copyOf(good, good.length - 1)))
        .isInstanceOf(CheckpointFormatException.class)
        .hasMessageContaining("chunk positions");
    byte[] wrongCount = good.clone();
    ByteBuffer.wrap(wrongCount).putInt(37, 4);
    assertThatThrownBy(() -> CheckpointManifest.decode(wrongCount))
        .isInstanceOf(CheckpointFormatException.class)
        .hasMessageContaining("declares 4 chunks");
    byte[] version = good.clone();
    version[0] = 9;
    assertThatThrownBy(() -> CheckpointManifest.decode(version))
        .isInstanceOf(CheckpointFormatException.class)
        .hasMessageContaining("version 9");
  }
}

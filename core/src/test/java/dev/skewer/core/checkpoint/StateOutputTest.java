package dev.skewer.core.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class StateOutputTest {

  @Test
  void shouldBeEmptyBeforeAnyWrite() {
    StateOutput out = new StateOutput();

    assertThat(out.size()).isZero();
    assertThat(out.toByteArray()).isEmpty();
  }

  @Test
  void shouldHoldExactlyWhatAByteArrayOutputStreamHoldsAcrossBlockBoundaries() throws IOException {
    for (long seed = 1; seed <= 40; seed++) {
      SplittableRandom rnd = new SplittableRandom(seed);
      ByteArrayOutputStream expected = new ByteArrayOutputStream();
      StateOutput actual = new StateOutput();
      DataOutputStream e = new DataOutputStream(expected);
      DataOutputStream a = new DataOutputStream(actual);
      // up to ~3 MiB: past the first blocks and several full-size ones
      long target = rnd.nextLong(0, 3L * StateOutput.MAX_BLOCK);
      while (expected.size() < target) {
        switch (rnd.nextInt(4)) {
          case 0 -> {
            int b = rnd.nextInt(256);
            e.write(b);
            a.write(b);
          }
          case 1 -> {
            long v = rnd.nextLong();
            e.writeLong(v);
            a.writeLong(v);
          }
          default -> {
            byte[] chunk = new byte[rnd.nextInt(0, 2 * StateOutput.MAX_BLOCK / 3)];
            rnd.nextBytes(chunk);
            int off = chunk.length == 0 ? 0 : rnd.nextInt(chunk.length);
            int len = chunk.length == 0 ? 0 : rnd.nextInt(chunk.length - off + 1);
            e.write(chunk, off, len);
            a.write(chunk, off, len);
          }
        }
      }
      a.flush();

      assertThat(actual.size()).as("seed %d", seed).isEqualTo(expected.size());
      assertThat(actual.toByteArray()).as("seed %d", seed).isEqualTo(expected.toByteArray());
    }
  }

  @Test
  void shouldRefuseARangeOutsideTheArray() {
    StateOutput out = new StateOutput();

    assertThatThrownBy(() -> out.write(new byte[4], 2, 3))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThat(out.size()).isZero();
  }
}

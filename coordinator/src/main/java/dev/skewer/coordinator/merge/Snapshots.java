package dev.skewer.coordinator.merge;

import dev.skewer.core.checkpoint.CheckpointFormatException;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** Checkpoint encoding helpers shared by the merge engines; every count is checked. */
final class Snapshots {

  private Snapshots() {}

  /** Reads a count and checks it against the bytes left (each item needs at least minBytes). */
  static int count(ByteBuffer in, int minBytes) {
    int n = in.getInt();
    if (n < 0 || (long) n * minBytes > in.remaining()) {
      throw new CheckpointFormatException(
          "declared count " + n + " does not fit the " + in.remaining() + " bytes left");
    }
    return n;
  }

  static void writeString(DataOutputStream out, String s) throws IOException {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    out.writeInt(b.length);
    out.write(b);
  }

  static String readString(ByteBuffer in) {
    byte[] b = new byte[count(in, 1)];
    in.get(b);
    return new String(b, StandardCharsets.UTF_8);
  }

  static long saturatingAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? (a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : r;
  }
}

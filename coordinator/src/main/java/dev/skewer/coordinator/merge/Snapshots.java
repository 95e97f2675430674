package dev.skewer.coordinator.merge;

import dev.skewer.core.checkpoint.CheckpointFormatException;
import dev.skewer.core.wire.Partial;
import dev.skewer.core.wire.WireCodec;
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

  /** Writes the held Partial of each source (wire encoding), null as a 0 byte. */
  static void writeSources(DataOutputStream out, Partial[] bySource) throws IOException {
    out.writeInt(bySource.length);
    for (Partial p : bySource) {
      if (p == null) {
        out.writeByte(0);
      } else {
        out.writeByte(1);
        byte[] wire = WireCodec.encode(p);
        out.writeInt(wire.length);
        out.write(wire);
      }
    }
  }

  /** Reads what {@link #writeSources} wrote into an array of at least {@code minSources}. */
  static Partial[] readSources(ByteBuffer in, int minSources) {
    int sources = count(in, 1);
    Partial[] bySource = new Partial[Math.max(sources, minSources)];
    for (int s = 0; s < sources; s++) {
      if (in.get() != 0) {
        byte[] wire = new byte[count(in, 1)];
        in.get(wire);
        if (!(WireCodec.decode(wire) instanceof Partial p)) {
          throw new CheckpointFormatException("a held message is not a Partial");
        }
        bySource[s] = p;
      }
    }
    return bySource;
  }

  static int held(Partial[] bySource) {
    int n = 0;
    for (Partial p : bySource) {
      if (p != null) {
        n++;
      }
    }
    return n;
  }

  static long saturatingAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? (a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : r;
  }
}

package dev.skewer.core.wire;

/** Encodes and decodes {@link PartialsMessage}s. (API first; body follows.) */
public final class WireCodec {
  private WireCodec() {}

  public static byte[] encode(PartialsMessage message) {
    throw new UnsupportedOperationException("not yet");
  }

  public static PartialsMessage decode(byte[] bytes) {
    throw new UnsupportedOperationException("not yet");
  }
}

package dev.skewer.sketches;

/** The versioned binary codec of {@link Aggregate}. CONTRACT STUB. */
public final class AggregateCodec {
  private AggregateCodec() {}

  public static byte[] encode(Aggregate aggregate) {
    throw new UnsupportedOperationException("stub");
  }

  /** Decodes bytes; any malformed input throws {@link CodecException} and nothing else. */
  public static Aggregate decode(byte[] bytes) {
    return decode(bytes, 0, bytes.length);
  }

  public static Aggregate decode(byte[] bytes, int offset, int length) {
    throw new UnsupportedOperationException("stub");
  }
}

package dev.skewer.loadgen.workload;

import java.nio.charset.StandardCharsets;

/**
 * Writes event records by hand: {@code
 * {"key":"ad17","user":"u123","value":12.3,"ts":1700000000000}} with the value at most 3 decimals,
 * and the broken variants of {@link Malformation}.
 *
 * <p>Keys and users are generated from {@code [a-z0-9#]} and are not escaped.
 */
public final class EventJson {

  /** Default record-size bound of a node: a HUGE malformed record is larger than this. */
  public static final int HUGE_RECORD_BYTES = 64 * 1024;

  private EventJson() {}

  /** {@code value} rounded half-up to 3 decimals, as the JSON carries it. */
  public static double round3(double value) {
    return Math.round(value * 1000.0) / 1000.0;
  }

  public static byte[] encode(String key, String user, double value, long tsMs) {
    StringBuilder sb = new StringBuilder(80);
    sb.append('{');
    appendKey(sb, key).append(',');
    appendUser(sb, user).append(',');
    appendValue(sb, value).append(',');
    appendTs(sb, tsMs);
    sb.append('}');
    return ascii(sb);
  }

  /** The broken record of {@code malformation} for an event with these fields. */
  public static byte[] malformed(
      Malformation malformation, String key, String user, double value, long tsMs) {
    StringBuilder sb = new StringBuilder(80);
    switch (malformation) {
      case NOT_JSON:
        sb.append("key=").append(key).append(" value=").append(value).append(" {oops");
        break;
      case JSON_ARRAY:
        sb.append("[\"").append(key).append("\",").append(tsMs).append(']');
        break;
      case MISSING_KEY:
        sb.append('{');
        appendUser(sb, user).append(',');
        appendValue(sb, value).append(',');
        appendTs(sb, tsMs).append('}');
        break;
      case MISSING_TS:
        sb.append('{');
        appendKey(sb, key).append(',');
        appendUser(sb, user).append(',');
        appendValue(sb, value).append('}');
        break;
      case NAN_VALUE:
        sb.append('{');
        appendKey(sb, key).append(',');
        appendUser(sb, user).append(",\"value\":NaN,");
        appendTs(sb, tsMs).append('}');
        break;
      case HUGE:
        sb = new StringBuilder(HUGE_RECORD_BYTES + 4096);
        sb.append('{');
        appendKey(sb, key).append(',');
        appendUser(sb, user).append(',');
        appendValue(sb, value).append(',');
        appendTs(sb, tsMs).append(",\"pad\":\"");
        sb.append("x".repeat(HUGE_RECORD_BYTES + 1024)).append("\"}");
        break;
      default:
        throw new IllegalArgumentException("unknown malformation " + malformation);
    }
    return ascii(sb);
  }

  private static StringBuilder appendKey(StringBuilder sb, String key) {
    return sb.append("\"key\":\"").append(key).append('"');
  }

  private static StringBuilder appendUser(StringBuilder sb, String user) {
    return sb.append("\"user\":\"").append(user).append('"');
  }

  private static StringBuilder appendTs(StringBuilder sb, long tsMs) {
    return sb.append("\"ts\":").append(tsMs);
  }

  private static StringBuilder appendValue(StringBuilder sb, double value) {
    sb.append("\"value\":");
    return appendDecimal3(sb, value);
  }

  /** {@code value} with at most 3 decimals, e.g. 12.3, 0.005, 20.0, -1.25. */
  static StringBuilder appendDecimal3(StringBuilder sb, double value) {
    if (!Double.isFinite(value)) {
      throw new IllegalArgumentException("value must be finite: " + value);
    }
    long milli = Math.round(value * 1000.0);
    if (milli < 0) {
      sb.append('-');
      milli = -milli;
    }
    sb.append(milli / 1000).append('.');
    int frac = (int) (milli % 1000);
    if (frac == 0) {
      return sb.append('0');
    }
    int digits = 3;
    while (frac % 10 == 0) {
      frac /= 10;
      digits--;
    }
    String f = Integer.toString(frac);
    for (int pad = f.length(); pad < digits; pad++) {
      sb.append('0');
    }
    return sb.append(f);
  }

  private static byte[] ascii(StringBuilder sb) {
    return sb.toString().getBytes(StandardCharsets.US_ASCII);
  }
}

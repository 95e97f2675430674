package dev.skewer.core.event;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import dev.skewer.core.job.InputSpec;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.NumericField;
import dev.skewer.core.job.Pointers;
import dev.skewer.core.job.TimeFormat;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;

/**
 * Decodes one JSON event into a {@link DecodedEvent}, or names the reason it cannot.
 *
 * <p><b>Contract.</b> {@link #decode} never throws for any input bytes: it returns null on success
 * or a {@link DlqReason}. Checks, in order: {@code TOO_LARGE} (more than {@code maxRecordBytes}),
 * {@code EMPTY} (null, empty or whitespace only), {@code NOT_JSON} (syntax error or anything after
 * the first value), {@code NOT_OBJECT}, then the key ({@code MISSING_KEY}, {@code BAD_KEY}), the
 * time ({@code MISSING_TIME}, {@code BAD_TIME}) and the numeric fields ({@code NOT_A_NUMBER} for a
 * string, boolean, object or array, then {@code NON_FINITE_NUMBER} for NaN, ±Infinity or a number
 * beyond a double). Absent numeric fields and a JSON {@code null} are NaN, not errors; items
 * (distinct, frequency, dimensions) take any scalar as text and ignore null, objects and arrays.
 * The key may be a string or a number (its JSON text) and is the user's, unchanged: a hot key's
 * salt travels in the Kafka record key only, never in the event.
 *
 * <p>Event time: an integral JSON number of epoch milliseconds, or a string of digits (formats
 * {@code EPOCH_MS}, {@code AUTO}); an ISO-8601 instant with a zone, {@code Z} or an offset,
 * optional fractional seconds truncated to milliseconds ({@code ISO_8601}, {@code AUTO}). Times
 * outside ±8.64e15 ms (the ECMAScript range, ±273,790 years) are {@code BAD_TIME}.
 *
 * <p>A key with a lone UTF-16 surrogate (possible through JSON escapes of a single surrogate) is
 * {@code BAD_KEY}: it could not cross the partials topic's UTF-8 unchanged.
 *
 * <p>Not thread-safe: one decoder per consumer thread (it keeps per-record scratch state).
 *
 * <p>Implementation note: the parser streams tokens and walks a trie of the configured pointer
 * segments, so unmapped subtrees are skipped and no tree is built; field names come from Jackson's
 * canonicalizing symbol table, so matching allocates nothing. Array elements are never matched
 * (pointer segments address object members only). Non-numeric literals ({@code NaN}, {@code
 * Infinity}) are admitted by the parser precisely so that they can be reported as {@code
 * NON_FINITE_NUMBER} rather than as {@code NOT_JSON}.
 */
public final class EventDecoder {

  /** Outer bound of event times, in ms either side of the epoch. */
  public static final long MAX_ABS_TIME_MS = 8_640_000_000_000_000L;

  private static final JsonFactory FACTORY =
      JsonFactory.builder()
          .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
          .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
          .enable(StreamReadFeature.USE_FAST_DOUBLE_PARSER)
          .build();

  private static final int KEY = -1;
  private static final int TIME = -2;
  private static final int DISTINCT = -3;
  private static final int QUANTILE = -4;
  private static final int FREQUENCY = -5;
  private static final int DIMENSION_BASE = 1 << 16;

  private final PathNode root = new PathNode();
  private final int maxRecordBytes;
  private final TimeFormat timeFormat;

  // per-record scratch state
  private boolean keySeen;
  private boolean keyBad;
  private boolean timeSeen;
  private boolean timeBad;
  private boolean nonFinite;
  private boolean notNumber;

  public EventDecoder(JobSpec job) {
    InputSpec in = job.input();
    this.maxRecordBytes = in.maxRecordBytes();
    this.timeFormat = in.timeFormat();
    add(in.keyPointer(), KEY);
    add(in.timePointer(), TIME);
    List<NumericField> numeric = in.numericFields();
    for (int i = 0; i < numeric.size(); i++) {
      add(numeric.get(i).pointer(), i);
    }
    if (in.distinctPointer() != null) {
      add(in.distinctPointer(), DISTINCT);
    }
    if (in.quantilePointer() != null) {
      add(in.quantilePointer(), QUANTILE);
    }
    if (in.frequencyPointer() != null) {
      add(in.frequencyPointer(), FREQUENCY);
    }
    for (int i = 0; i < in.dimensions().size(); i++) {
      add(in.dimensions().get(i).pointer(), DIMENSION_BASE + i);
    }
  }

  private void add(String pointer, int target) {
    PathNode node = root;
    for (String segment : Pointers.segments(pointer)) {
      node = node.child(segment, true);
    }
    int[] t = Arrays.copyOf(node.targets, node.targets.length + 1);
    t[t.length - 1] = target;
    node.targets = t;
  }

  /**
   * Fills {@code into} from {@code value}. Returns null on success, else the reason the record
   * belongs in the DLQ; on failure the content of {@code into} is unspecified.
   */
  public DlqReason decode(byte[] value, DecodedEvent into) {
    into.clear();
    if (value == null) {
      return DlqReason.EMPTY;
    }
    if (value.length > maxRecordBytes) {
      return DlqReason.TOO_LARGE;
    }
    if (value.length == 0) {
      return DlqReason.EMPTY;
    }
    keySeen = false;
    keyBad = false;
    timeSeen = false;
    timeBad = false;
    nonFinite = false;
    notNumber = false;
    try (JsonParser p = FACTORY.createParser(value)) {
      JsonToken first = p.nextToken();
      if (first == null) {
        return DlqReason.EMPTY;
      }
      if (first != JsonToken.START_OBJECT) {
        p.skipChildren();
        return p.nextToken() == null ? DlqReason.NOT_OBJECT : DlqReason.NOT_JSON;
      }
      readObject(p, root, into);
      if (p.nextToken() != null) {
        return DlqReason.NOT_JSON;
      }
    } catch (JsonProcessingException e) {
      return DlqReason.NOT_JSON;
    } catch (IOException | RuntimeException e) {
      // byte[] input cannot fail with I/O; anything else from the parser is malformed input
      return DlqReason.NOT_JSON;
    }
    if (!keySeen) {
      return DlqReason.MISSING_KEY;
    }
    if (keyBad) {
      return DlqReason.BAD_KEY;
    }
    if (!timeSeen) {
      return DlqReason.MISSING_TIME;
    }
    if (timeBad) {
      return DlqReason.BAD_TIME;
    }
    if (notNumber) {
      return DlqReason.NOT_A_NUMBER;
    }
    if (nonFinite) {
      return DlqReason.NON_FINITE_NUMBER;
    }
    return null;
  }

  private void readObject(JsonParser p, PathNode node, DecodedEvent into) throws IOException {
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      PathNode child = node.child(p.currentName(), false);
      JsonToken v = p.nextToken();
      if (child == null) {
        p.skipChildren();
        continue;
      }
      if (v == JsonToken.START_OBJECT) {
        structured(child.targets);
        if (child.names.length == 0) {
          p.skipChildren();
        } else {
          readObject(p, child, into);
        }
      } else if (v == JsonToken.START_ARRAY) {
        structured(child.targets);
        p.skipChildren();
      } else {
        scalar(p, v, child.targets, into);
      }
    }
  }

  /** An object or array where targets expected a scalar. */
  private void structured(int[] targets) {
    for (int target : targets) {
      if (target == KEY) {
        keySeen = true;
        keyBad = true;
      } else if (target == TIME) {
        timeSeen = true;
        timeBad = true;
      } else if (target == QUANTILE || (target >= 0 && target < DIMENSION_BASE)) {
        notNumber = true;
      }
    }
  }

  private void scalar(JsonParser p, JsonToken v, int[] targets, DecodedEvent into)
      throws IOException {
    String text = null;
    for (int target : targets) {
      if (target == KEY) {
        keySeen = true;
        if (v == JsonToken.VALUE_STRING
            || v == JsonToken.VALUE_NUMBER_INT
            || (v == JsonToken.VALUE_NUMBER_FLOAT && !p.isNaN())) {
          text = text == null ? p.getText() : text;
          if (text.isEmpty() || hasLoneSurrogate(text)) {
            keyBad = true;
          } else {
            into.setKey(text);
          }
        } else {
          keyBad = true;
        }
      } else if (target == TIME) {
        timeSeen = true;
        long t = time(p, v);
        if (t == Long.MIN_VALUE) {
          timeBad = true;
        } else {
          into.setEventTimeMs(t);
        }
      } else if (target == QUANTILE) {
        into.setQuantileValue(number(p, v));
      } else if (target >= 0 && target < DIMENSION_BASE) {
        into.setNumeric(target, number(p, v));
      } else if (v != JsonToken.VALUE_NULL) {
        text = text == null ? p.getText() : text;
        if (target == DISTINCT) {
          into.setDistinctItem(text);
        } else if (target == FREQUENCY) {
          into.setFrequencyItem(text);
        } else {
          into.setDimension(target - DIMENSION_BASE, text);
        }
      }
    }
  }

  /** The value of a numeric field: NaN for null, and flags anything not a finite number. */
  private double number(JsonParser p, JsonToken v) throws IOException {
    if (v == JsonToken.VALUE_NUMBER_INT || v == JsonToken.VALUE_NUMBER_FLOAT) {
      double d = p.getDoubleValue();
      if (Double.isFinite(d)) {
        return d;
      }
      nonFinite = true; // NaN, ±Infinity, or beyond a double
      return Double.NaN;
    }
    if (v == JsonToken.VALUE_NULL) {
      return Double.NaN;
    }
    notNumber = true; // a string (even of digits), a boolean
    return Double.NaN;
  }

  /** The event time in ms, or Long.MIN_VALUE when it is bad. */
  private long time(JsonParser p, JsonToken v) throws IOException {
    if (v == JsonToken.VALUE_NUMBER_INT) {
      if (timeFormat == TimeFormat.ISO_8601) {
        return Long.MIN_VALUE;
      }
      JsonParser.NumberType type = p.getNumberType();
      if (type != JsonParser.NumberType.INT && type != JsonParser.NumberType.LONG) {
        return Long.MIN_VALUE;
      }
      return inRange(p.getLongValue());
    }
    if (v == JsonToken.VALUE_NUMBER_FLOAT) {
      if (timeFormat == TimeFormat.ISO_8601 || p.isNaN()) {
        return Long.MIN_VALUE;
      }
      BigDecimal d = p.getDecimalValue();
      try {
        return inRange(d.longValueExact());
      } catch (ArithmeticException e) {
        return Long.MIN_VALUE;
      }
    }
    if (v == JsonToken.VALUE_STRING) {
      char[] buf = p.getTextCharacters();
      int off = p.getTextOffset();
      int len = p.getTextLength();
      boolean digits = len > 0 && isDigitString(buf, off, len);
      if (digits && timeFormat != TimeFormat.ISO_8601) {
        return inRange(parseLong(buf, off, len));
      }
      if (!digits && timeFormat != TimeFormat.EPOCH_MS) {
        return IsoInstant.parseMs(buf, off, len);
      }
    }
    return Long.MIN_VALUE;
  }

  /** A key must be well-formed UTF-16 so that it survives UTF-8 on the wire unchanged. */
  private static boolean hasLoneSurrogate(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isSurrogate(c)) {
        if (Character.isHighSurrogate(c)
            && i + 1 < s.length()
            && Character.isLowSurrogate(s.charAt(i + 1))) {
          i++;
        } else {
          return true;
        }
      }
    }
    return false;
  }

  private static long inRange(long t) {
    return t >= -MAX_ABS_TIME_MS && t <= MAX_ABS_TIME_MS ? t : Long.MIN_VALUE;
  }

  private static boolean isDigitString(char[] buf, int off, int len) {
    int start = buf[off] == '-' ? 1 : 0;
    if (start == len) {
      return false;
    }
    for (int i = start; i < len; i++) {
      char c = buf[off + i];
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  /** Parses an optionally negative digit string; Long.MIN_VALUE when it has over 17 digits. */
  private static long parseLong(char[] buf, int off, int len) {
    boolean negative = buf[off] == '-';
    int start = negative ? 1 : 0;
    if (len - start > 17) {
      return Long.MIN_VALUE; // beyond MAX_ABS_TIME_MS (16 digits) anyway, and no overflow
    }
    long r = 0;
    for (int i = start; i < len; i++) {
      r = r * 10 + (buf[off + i] - '0');
    }
    return negative ? -r : r;
  }

  /**
   * One pointer segment of the trie: what it feeds and where it continues. Its children are a few
   * names (an event's mapped fields), held interned, as Jackson hands out field names: a lookup
   * compares references first and reads characters only for a name Jackson did not intern.
   */
  private static final class PathNode {
    String[] names = new String[0];
    PathNode[] children = new PathNode[0];
    int[] targets = new int[0];

    /** The child named {@code name}, or null; {@code create} adds it when missing. */
    PathNode child(String name, boolean create) {
      for (int i = 0; i < names.length; i++) {
        if (names[i] == name) {
          return children[i];
        }
      }
      for (int i = 0; i < names.length; i++) {
        if (names[i].equals(name)) {
          return children[i];
        }
      }
      if (!create) {
        return null;
      }
      PathNode child = new PathNode();
      names = Arrays.copyOf(names, names.length + 1);
      names[names.length - 1] = name.intern();
      children = Arrays.copyOf(children, children.length + 1);
      children[children.length - 1] = child;
      return child;
    }
  }

  /** ISO-8601 instants on a char range, without allocating on the happy path. */
  static final class IsoInstant {
    private IsoInstant() {}

    /**
     * {@code yyyy-MM-dd(T|t| )HH:mm[:ss[.f{1,9}]](Z|z|±HH[:]MM|±HH)}; returns epoch ms, or
     * Long.MIN_VALUE if malformed or out of range.
     */
    static long parseMs(char[] b, int off, int len) {
      int end = off + len;
      int i = off;
      if (len < 17) {
        return Long.MIN_VALUE;
      }
      int year = digits(b, i, 4, end);
      int month = digits(b, i + 5, 2, end);
      int day = digits(b, i + 8, 2, end);
      if (year < 0 || month < 0 || day < 0 || b[i + 4] != '-' || b[i + 7] != '-') {
        return Long.MIN_VALUE;
      }
      char sep = b[i + 10];
      if (sep != 'T' && sep != 't' && sep != ' ') {
        return Long.MIN_VALUE;
      }
      int hour = digits(b, i + 11, 2, end);
      int minute = digits(b, i + 14, 2, end);
      if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || b[i + 13] != ':') {
        return Long.MIN_VALUE;
      }
      i += 16;
      int second = 0;
      int millis = 0;
      if (i < end && b[i] == ':') {
        second = digits(b, i + 1, 2, end);
        if (second < 0 || second > 59) {
          return Long.MIN_VALUE;
        }
        i += 3;
        if (i < end && (b[i] == '.' || b[i] == ',')) {
          i++;
          int n = 0;
          while (i < end && b[i] >= '0' && b[i] <= '9') {
            if (n < 3) {
              millis = millis * 10 + (b[i] - '0');
            }
            n++;
            i++;
          }
          if (n == 0 || n > 9) {
            return Long.MIN_VALUE;
          }
          for (int k = n; k < 3; k++) {
            millis *= 10;
          }
        }
      }
      if (i >= end) {
        return Long.MIN_VALUE; // a zone is required
      }
      int offsetSeconds;
      char z = b[i];
      if (z == 'Z' || z == 'z') {
        offsetSeconds = 0;
        i++;
      } else if (z == '+' || z == '-') {
        int oh = digits(b, i + 1, 2, end);
        if (oh < 0 || oh > 18) {
          return Long.MIN_VALUE;
        }
        int om = 0;
        i += 3;
        if (i < end) {
          if (b[i] == ':') {
            i++;
          }
          om = digits(b, i, 2, end);
          if (om < 0 || om > 59) {
            return Long.MIN_VALUE;
          }
          i += 2;
        }
        offsetSeconds = (oh * 3600 + om * 60) * (z == '-' ? -1 : 1);
      } else {
        return Long.MIN_VALUE;
      }
      if (i != end) {
        return Long.MIN_VALUE;
      }
      long epochDay;
      try {
        epochDay = LocalDate.of(year, month, day).toEpochDay();
      } catch (DateTimeException e) {
        return Long.MIN_VALUE;
      }
      long seconds = epochDay * 86_400L + hour * 3600L + minute * 60L + second - offsetSeconds;
      return seconds * 1000L + millis;
    }

    /** {@code n} decimal digits at {@code i}, or -1 (also when out of bounds). */
    private static int digits(char[] b, int i, int n, int end) {
      if (i < 0 || i + n > end) {
        return -1;
      }
      int r = 0;
      for (int k = 0; k < n; k++) {
        char c = b[i + k];
        if (c < '0' || c > '9') {
          return -1;
        }
        r = r * 10 + (c - '0');
      }
      return r;
    }
  }
}

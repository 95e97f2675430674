package dev.skewer.core.result;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.io.NumberOutput;
import com.fasterxml.jackson.core.io.SerializedString;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.NumericField;
import dev.skewer.core.job.OutputSpec;
import dev.skewer.core.job.SessionWindow;
import dev.skewer.sketches.Aggregate;
import dev.skewer.sketches.DistinctEstimate;
import dev.skewer.sketches.HeavyHitter;
import dev.skewer.sketches.QuantileEstimate;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * Writes one result as a JSON envelope (UTF-8 bytes):
 *
 * <pre>{@code
 * {"event": <job.name>, "<output.keyField>": <key>, "timestamp": "yyyy-MM-dd HH:mm:ss",
 *  "guarantee": "at_least_once" | "exactly_once",
 *  "value": {
 *    "window_start_ms": .., "window_end_ms": .., "event_count": ..,
 *    "sum_<f>": .., "min_<f>": .., "max_<f>": ..,            (each numeric field f)
 *    "distinct_<d>": {"estimate": .., "rse": ..},             (distinctPointer set)
 *    "p50_<q>": {"estimate": .., "rank_error": ..}, ..        (quantilePointer set)
 *    "top_<h>": [{"item": .., "estimate": .., "error": ..}],  (frequencyPointer set)
 *    "<dimension>": "..",                                     (each dimension with a value)
 *    "revision": n},
 *  "provenance": {"sources": [{"partition": .., "epoch": ..}], "partitions_reporting": ..,
 *                 "partitions_expected": .., "watermark_ms": .., "late_events": ..},
 *  "user_attributes": {}}
 * }</pre>
 *
 * <p>{@code provenance} ({@link Provenance}) says who wrote the result, not what it says: it is the
 * one part of a result that differs after a failure (epochs, watermark at emission); everything
 * else is identical to a failure-free run's bytes.
 *
 * <p>Session jobs (the seed's session envelope) write {@code "session_start_ms", "session_end_ms"}
 * (the first and last event times, both inclusive: the session's half-open interval is {@code
 * [windowStartMs, windowEndMs)} with {@code windowEndMs} = last event + 1), {@code "event_count"}
 * and {@code "duration_ms"} (last − first) in place of the window bounds; a session merged into
 * another by a late bridging event is rewritten once with an empty aggregate and {@code
 * "superseded_by": "<key>@<start of the surviving session>"} (see docs/windows.md).
 *
 * <p>{@code timestamp} is the window (session) start in UTC, as in the seed's ksqlDB {@code
 * TIMESTAMPTOSTRING(WINDOWSTART, 'yyyy-MM-dd HH:mm:ss', 'UTC')}. Names: {@code <f>} is the numeric
 * field's name; {@code <d>}, {@code <q>}, {@code <h>} are derived from the pointer ({@code
 * /user/id} → {@code user_id}, see {@link dev.skewer.core.job.InputSpec#distinctName()}); quantile
 * labels come from {@link OutputSpec#quantileLabel(double)} ({@code p50}, {@code p99}, {@code
 * p99_9}). {@code min_}/{@code max_} are omitted when the field had no value in the window,
 * quantiles when there was no quantile value; the top list is omitted when {@code
 * output.heavyHitters} is 0. {@code error} is the heavy hitter's maximal overestimate (true count
 * in [estimate − error, estimate]); {@code rse} the relative standard error of the distinct count;
 * {@code rank_error} the quantile's rank error (0 when exact). A non-finite number (a sum that
 * overflowed) is written as {@code null}. {@code revision} is 0 for the final result and counts
 * revisions after it. {@code guarantee} is the job's {@link dev.skewer.core.job.Guarantee}: what
 * the result's producer promised about duplicates after failures (see docs/guarantees.md).
 *
 * <p>Thread-safe (a generator per thread; the one field written after construction caches the last
 * timestamp text as an immutable value).
 */
public final class ResultFormatter {

  // the shortest decimal that reads back as the same double (Double.toString's format), written
  // without Double.toString's intermediate objects
  private static final JsonFactory FACTORY =
      JsonFactory.builder().enable(StreamWriteFeature.USE_FAST_DOUBLE_WRITER).build();
  private static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC);

  // names (and the two constant values) pre-encoded once: written as bytes, not escaped per result
  private static final SerializableString EVENT = name("event");
  private static final SerializableString TIMESTAMP_FIELD = name("timestamp");
  private static final SerializableString GUARANTEE = name("guarantee");
  private static final SerializableString VALUE = name("value");
  private static final SerializableString SESSION_START_MS = name("session_start_ms");
  private static final SerializableString SESSION_END_MS = name("session_end_ms");
  private static final SerializableString EVENT_COUNT = name("event_count");
  private static final SerializableString DURATION_MS = name("duration_ms");
  private static final SerializableString WINDOW_START_MS = name("window_start_ms");
  private static final SerializableString WINDOW_END_MS = name("window_end_ms");
  private static final SerializableString ESTIMATE = name("estimate");
  private static final SerializableString RSE = name("rse");
  private static final SerializableString RANK_ERROR = name("rank_error");
  private static final SerializableString ITEM = name("item");
  private static final SerializableString ERROR = name("error");
  private static final SerializableString SUPERSEDED_BY = name("superseded_by");
  private static final SerializableString REVISION = name("revision");
  private static final SerializableString PROVENANCE_FIELD = name("provenance");
  private static final SerializableString USER_ATTRIBUTES = name("user_attributes");
  private static final SerializableString SOURCES = name("sources");
  private static final SerializableString PARTITION = name("partition");
  private static final SerializableString EPOCH = name("epoch");
  private static final SerializableString PARTITIONS_REPORTING = name("partitions_reporting");
  private static final SerializableString PARTITIONS_EXPECTED = name("partitions_expected");
  private static final SerializableString WATERMARK_MS = name("watermark_ms");
  private static final SerializableString LATE_EVENTS = name("late_events");

  private final SerializableString event;
  private final SerializableString guarantee;
  private final SerializableString keyField;
  private final SerializableString[] sumNames;
  private final SerializableString[] minNames;
  private final SerializableString[] maxNames;
  private final SerializableString distinctName;
  private final double[] quantiles;
  private final SerializableString[] quantileNames;
  private final SerializableString topName;
  private final int heavyHitters;
  private final SerializableString[] dimensionNames;
  private final boolean sessions;
  // the last timestamp written: an immutable value, so threads racing on it only repeat the work
  private volatile FormattedTime lastTimestamp;

  public ResultFormatter(JobSpec job) {
    this.event = name(job.name());
    this.guarantee = name(job.guarantee().label());
    this.sessions = job.window() instanceof SessionWindow;
    this.keyField = name(job.output().keyField());
    List<NumericField> fields = job.input().numericFields();
    this.sumNames = new SerializableString[fields.size()];
    this.minNames = new SerializableString[fields.size()];
    this.maxNames = new SerializableString[fields.size()];
    for (int i = 0; i < fields.size(); i++) {
      sumNames[i] = name("sum_" + fields.get(i).name());
      minNames[i] = name("min_" + fields.get(i).name());
      maxNames[i] = name("max_" + fields.get(i).name());
    }
    this.distinctName =
        job.input().distinctPointer() == null
            ? null
            : name("distinct_" + job.input().distinctName());
    List<Double> qs = job.output().quantiles();
    boolean quantilesOn = job.input().quantilePointer() != null;
    this.quantiles = new double[quantilesOn ? qs.size() : 0];
    this.quantileNames = new SerializableString[quantiles.length];
    for (int i = 0; i < quantiles.length; i++) {
      quantiles[i] = qs.get(i);
      quantileNames[i] =
          name(OutputSpec.quantileLabel(qs.get(i)) + "_" + job.input().quantileName());
    }
    this.heavyHitters = job.output().heavyHitters();
    this.topName =
        job.input().frequencyPointer() == null || heavyHitters == 0
            ? null
            : name("top_" + job.input().frequencyName());
    this.dimensionNames =
        job.input().dimensions().stream()
            .map(d -> name(d.name()))
            .toArray(SerializableString[]::new);
  }

  private static SerializableString name(String text) {
    return new SerializedString(text);
  }

  /**
   * The result for {@code key} over {@code [windowStartMs, windowEndMs)}.
   *
   * @param dimensions values in {@code input.dimensions} order (null entries omitted), or null
   */
  public byte[] format(
      String key,
      long windowStartMs,
      long windowEndMs,
      Aggregate aggregate,
      int revision,
      String[] dimensions) {
    return format(key, windowStartMs, windowEndMs, aggregate, revision, dimensions, null);
  }

  /**
   * The result for {@code key} over {@code [windowStartMs, windowEndMs)}; for a session job the
   * session whose first event is at {@code windowStartMs} and last at {@code windowEndMs - 1}.
   *
   * @param dimensions values in {@code input.dimensions} order (null entries omitted), or null
   * @param supersededBy for a session merged into another one: the result key of the session that
   *     absorbed it (the aggregate is then empty); null otherwise
   */
  public byte[] format(
      String key,
      long windowStartMs,
      long windowEndMs,
      Aggregate aggregate,
      int revision,
      String[] dimensions,
      String supersededBy) {
    return format(
        key, windowStartMs, windowEndMs, aggregate, revision, dimensions, supersededBy, null);
  }

  /**
   * As above, with the result's {@link Provenance} as a top-level {@code "provenance"} object
   * (omitted when null).
   */
  public byte[] format(
      String key,
      long windowStartMs,
      long windowEndMs,
      Aggregate aggregate,
      int revision,
      String[] dimensions,
      String supersededBy,
      Provenance provenance) {
    return formatResult(
            key,
            windowStartMs,
            windowEndMs,
            aggregate,
            revision,
            dimensions,
            supersededBy,
            provenance)
        .bytes();
  }

  /**
   * As {@link #format(String, long, long, Aggregate, int, String[], String, Provenance)}, with what
   * a reader would otherwise parse back out of the bytes: the distinct estimate written and where
   * the provenance object lies.
   */
  public FormattedResult formatResult(
      String key,
      long windowStartMs,
      long windowEndMs,
      Aggregate aggregate,
      int revision,
      String[] dimensions,
      String supersededBy,
      Provenance provenance) {
    Scratch scratch = SCRATCH.get();
    double distinctEstimate = Double.NaN;
    int provenanceFrom = FormattedResult.NO_PROVENANCE;
    int provenanceTo = FormattedResult.NO_PROVENANCE;
    try {
      JsonGenerator g = scratch.generator;
      g.writeStartObject();
      g.writeFieldName(EVENT);
      g.writeString(event);
      g.writeFieldName(keyField);
      g.writeString(key);
      g.writeFieldName(TIMESTAMP_FIELD);
      g.writeString(timestamp(windowStartMs));
      g.writeFieldName(GUARANTEE);
      g.writeString(guarantee);
      g.writeFieldName(VALUE);
      g.writeStartObject();
      if (sessions) {
        number(g, SESSION_START_MS, windowStartMs);
        number(g, SESSION_END_MS, windowEndMs - 1);
        number(g, EVENT_COUNT, aggregate.count());
        number(g, DURATION_MS, windowEndMs - 1 - windowStartMs);
      } else {
        number(g, WINDOW_START_MS, windowStartMs);
        number(g, WINDOW_END_MS, windowEndMs);
        number(g, EVENT_COUNT, aggregate.count());
      }
      for (int i = 0; i < sumNames.length; i++) {
        number(g, sumNames[i], aggregate.sum(i));
        double min = aggregate.min(i);
        if (min != Double.POSITIVE_INFINITY) {
          number(g, minNames[i], min);
          number(g, maxNames[i], aggregate.max(i));
        }
      }
      if (distinctName != null) {
        DistinctEstimate d = aggregate.distinct();
        g.writeFieldName(distinctName);
        g.writeStartObject();
        number(g, ESTIMATE, d.estimate());
        distinctEstimate = d.estimate();
        scratch.rse.write(g, RSE, d.relativeStandardError());
        g.writeEndObject();
      }
      if (quantiles.length > 0 && aggregate.quantileCount() > 0) {
        QuantileEstimate[] estimates = aggregate.quantiles(quantiles);
        for (int i = 0; i < quantiles.length; i++) {
          QuantileEstimate q = estimates[i];
          g.writeFieldName(quantileNames[i]);
          g.writeStartObject();
          number(g, ESTIMATE, q.value());
          scratch.rankError.write(g, RANK_ERROR, q.rankError());
          g.writeEndObject();
        }
      }
      if (topName != null) {
        g.writeFieldName(topName);
        g.writeStartArray();
        for (HeavyHitter h : aggregate.heavyHitters(heavyHitters)) {
          g.writeStartObject();
          g.writeFieldName(ITEM);
          g.writeString(h.item());
          number(g, ESTIMATE, h.estimate());
          number(g, ERROR, h.maxOverestimate());
          g.writeEndObject();
        }
        g.writeEndArray();
      }
      if (dimensions != null) {
        for (int i = 0; i < Math.min(dimensions.length, dimensionNames.length); i++) {
          if (dimensions[i] != null) {
            g.writeFieldName(dimensionNames[i]);
            g.writeString(dimensions[i]);
          }
        }
      }
      if (supersededBy != null) {
        g.writeFieldName(SUPERSEDED_BY);
        g.writeString(supersededBy);
      }
      number(g, REVISION, revision);
      g.writeEndObject();
      if (provenance != null) {
        g.writeFieldName(PROVENANCE_FIELD);
        g.writeStartObject();
        provenanceFrom = scratch.position() - 1; // its '{'
        writeProvenance(g, provenance);
        provenanceTo = scratch.position();
      }
      g.writeFieldName(USER_ATTRIBUTES);
      g.writeStartObject();
      g.writeEndObject();
      g.writeEndObject();
      return new FormattedResult(scratch.take(), distinctEstimate, provenanceFrom, provenanceTo);
    } catch (IOException e) {
      SCRATCH.remove();
      throw new UncheckedIOException("writing to memory cannot fail", e);
    } catch (RuntimeException | Error e) {
      // a generator left inside an object cannot start the next result: start afresh
      SCRATCH.remove();
      throw e;
    }
  }

  /**
   * One generator per thread, writing result after result into one growing buffer: a result is a
   * root value with no separator, taken out as a copy and the buffer reset. Saves the generator,
   * its contexts and the output stream's growth per result (a result is ~600 bytes, written
   * hundreds of thousands of times a second); the bytes are those of a fresh generator.
   */
  private static final class Scratch {
    final ByteArrayOutputStream out = new ByteArrayOutputStream(1024);
    final JsonGenerator generator;
    // the numbers that repeat from result to result: the distinct count's relative standard error
    // (fixed by the precision) and an exact quantile's rank error (0)
    final RepeatedNumber rse = new RepeatedNumber();
    final RepeatedNumber rankError = new RepeatedNumber();

    Scratch() {
      try {
        generator = FACTORY.createGenerator(out, JsonEncoding.UTF8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      generator.setRootValueSeparator(null);
    }

    /** Bytes written so far to the current result, the generator's buffer included. */
    int position() {
      return out.size() + generator.getOutputBuffered();
    }

    byte[] take() throws IOException {
      generator.flush();
      byte[] bytes = out.toByteArray();
      out.reset();
      return bytes;
    }
  }

  /** The text of the last finite double written in one place, kept while it repeats. */
  private static final class RepeatedNumber {
    private long bits = Double.doubleToRawLongBits(Double.NaN);
    private String text;

    void write(JsonGenerator g, SerializableString name, double v) throws IOException {
      if (!Double.isFinite(v)) {
        g.writeFieldName(name);
        g.writeNull();
        return;
      }
      if (Double.doubleToRawLongBits(v) != bits) {
        bits = Double.doubleToRawLongBits(v);
        text = NumberOutput.toString(v, true); // what writeNumber(double) writes, fast writer on
      }
      g.writeFieldName(name);
      g.writeNumber(text);
    }
  }

  private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

  /**
   * The window start as {@code yyyy-MM-dd HH:mm:ss} UTC; the last one is kept (a window's results
   * share it).
   */
  private String timestamp(long windowStartMs) {
    FormattedTime last = lastTimestamp;
    if (last == null || last.epochMs() != windowStartMs) {
      last =
          new FormattedTime(windowStartMs, TIMESTAMP.format(Instant.ofEpochMilli(windowStartMs)));
      lastTimestamp = last;
    }
    return last.text();
  }

  private record FormattedTime(long epochMs, String text) {}

  /**
   * The results-topic record key: {@code key + "@" + windowStartMs} (for sessions the session
   * start).
   */
  public String resultKey(String key, long windowStartMs) {
    return key + "@" + windowStartMs;
  }

  /** The name of the top-level provenance object. */
  public static final String PROVENANCE = "provenance";

  /** The provenance object's content, its start already written. */
  private static void writeProvenance(JsonGenerator g, Provenance p) throws IOException {
    g.writeFieldName(SOURCES);
    g.writeStartArray();
    int[] partitions = p.sourcePartitions();
    long[] epochs = p.sourceEpochs();
    for (int i = 0; i < partitions.length; i++) {
      g.writeStartObject();
      number(g, PARTITION, partitions[i]);
      number(g, EPOCH, epochs[i]);
      g.writeEndObject();
    }
    g.writeEndArray();
    number(g, PARTITIONS_REPORTING, p.partitionsReporting());
    number(g, PARTITIONS_EXPECTED, p.partitionsExpected());
    if (p.watermarkMs() != Long.MIN_VALUE) {
      number(g, WATERMARK_MS, p.watermarkMs());
    }
    if (p.lateEvents() >= 0) {
      number(g, LATE_EVENTS, p.lateEvents());
    }
    g.writeEndObject();
  }

  /** A finite double, or null. */
  private static void number(JsonGenerator g, SerializableString name, double v)
      throws IOException {
    g.writeFieldName(name);
    if (Double.isFinite(v)) {
      g.writeNumber(v);
    } else {
      g.writeNull();
    }
  }

  private static void number(JsonGenerator g, SerializableString name, long v) throws IOException {
    g.writeFieldName(name);
    g.writeNumber(v);
  }
}

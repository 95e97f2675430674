package dev.skewer.reconcile.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skewer.coordinator.merge.FinalResult;
import dev.skewer.coordinator.merge.WindowMerger;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.OutputSpec;
import dev.skewer.core.result.ResultFormatter;
import dev.skewer.core.window.SliceAssigner;
import dev.skewer.core.window.WindowShape;
import dev.skewer.core.wire.Watermark;
import dev.skewer.node.aggregate.PartitionAggregator;
import dev.skewer.reconcile.AccountingIssue;
import dev.skewer.reconcile.ResultDifference;
import dev.skewer.reconcile.SketchFlag;
import dev.skewer.sketches.Aggregate;
import dev.skewer.sketches.SketchSpec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiConsumer;

/**
 * Recomputes and compares the results of one key at a time, in batch mode through the stream's own
 * cores: the key's events, in (source partition, offset) order, go through a {@link
 * PartitionAggregator} per source partition, its Partials through a {@link WindowMerger}, and the
 * final results through the {@link ResultFormatter}. The side topics say which events the stream
 * left out entirely, so lateness is switched off — except for hopping windows, where an event can
 * be past lateness for its first windows and not its later ones: there the aggregator judges
 * lateness as the node did, against the partition's watermark when the event arrived (recorded by
 * the scan). The exact distinct sets, quantile values and item counts are kept per (key, slice,
 * first window end) beside them and unioned over the parts a result covers.
 *
 * <p>Known limit: a node also judges lateness against the cluster's frontier (an idle partition's
 * events once it wakes up), which leaves no trace in the topics; a hopping event that was past
 * lateness only by the frontier is expected in its early windows here and reported as a difference.
 *
 * <p>Call {@link #begin}, then the key's records in sort order ({@link #result}, {@link #side},
 * {@link #event}), then {@link #end}. Not thread-safe.
 */
public final class KeyReconciler {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int EMIT_EVERY = 4096;

  // configuration
  private final JobSpec job;
  private final SketchSpec spec;
  private final SliceAssigner slices;
  private final WindowShape shape;
  private final ResultFormatter formatter;
  private final int sourcePartitions;
  private final long fromMs;
  private final long toMs;
  private final double sigmas;
  private final Map<String, Double> quantileFields = new HashMap<>();
  private final boolean exactDistinct;
  private final boolean exactQuantiles;
  private final boolean exactFrequencies;
  private final Tally tally;
  private final BiConsumer<String, byte[]> corrections; // null: none

  // per-key state
  private String key;
  private final Map<String, Streamed> streamed = new HashMap<>();
  private long[] sideTimes = new long[16];
  private int sideCount;
  private PartitionAggregator aggregator;
  private int aggregatorPartition = -1;
  private int sinceEmit;
  private WindowMerger merger;
  private long watermarkMs = Long.MIN_VALUE;
  // slice start -> first window end (Long.MIN_VALUE but for hopping) -> exact values
  private final TreeMap<Long, TreeMap<Long, ExactSlice>> exact = new TreeMap<>();
  private final boolean hopping;
  private final long delayMs;
  private final long allowedLatenessMs;
  private long keyEvents;

  /**
   * @param corrections receives (result key, corrected result JSON) for every differing result, or
   *     null
   */
  public KeyReconciler(
      JobSpec job,
      int sourcePartitions,
      long fromMs,
      long toMs,
      double sigmas,
      Tally tally,
      BiConsumer<String, byte[]> corrections) {
    this.job = job;
    this.spec = job.toSketchSpec();
    this.slices = SliceAssigner.of(job.window());
    this.shape = slices.shape();
    this.formatter = new ResultFormatter(job);
    this.sourcePartitions = sourcePartitions;
    this.fromMs = fromMs;
    this.toMs = toMs;
    this.sigmas = sigmas;
    this.tally = tally;
    this.corrections = corrections;
    this.exactDistinct = spec.distinct();
    this.exactQuantiles = spec.quantiles();
    this.exactFrequencies = spec.frequencies() && job.output().heavyHitters() > 0;
    this.hopping = shape instanceof WindowShape.Hopping;
    this.delayMs = job.watermark().delay().toMillis();
    this.allowedLatenessMs = job.allowedLateness().toMillis();
    if (spec.quantiles()) {
      // the field names ResultFormatter documents: <label>_<quantile name>
      for (double q : job.output().quantiles()) {
        quantileFields.put(OutputSpec.quantileLabel(q) + "_" + job.input().quantileName(), q);
      }
    }
  }

  /** Starts a key. */
  public void begin(String key) {
    this.key = key;
    streamed.clear();
    sideCount = 0;
    aggregator = null;
    aggregatorPartition = -1;
    sinceEmit = 0;
    merger = new WindowMerger(job.window(), sourcePartitions, 0, spec);
    watermarkMs = Long.MIN_VALUE;
    exact.clear();
    keyEvents = 0;
  }

  /** A results-topic record of this key (partition and offset of the results topic). */
  public void result(int partition, long offset, byte[] value) {
    JsonNode root;
    try {
      root = JSON.readTree(value);
    } catch (IOException e) {
      tally.resultsUnreadable++;
      return;
    }
    Streamed s = Streamed.parse(root, partition, offset);
    if (s == null) {
      tally.resultsUnreadable++;
      return;
    }
    String resultKey = formatter.resultKey(key, s.startMs);
    Streamed held = streamed.get(resultKey);
    // the upsert view: the last record written; across partitions (a repartitioned topic) the
    // highest revision
    if (held == null
        || (held.partition == partition ? offset > held.offset : s.revision > held.revision)) {
      streamed.put(resultKey, s);
    }
  }

  /** An event of this key that a side topic holds (late or DLQ). */
  public void side(long eventTimeMs) {
    if (sideCount == sideTimes.length) {
      sideTimes = Arrays.copyOf(sideTimes, sideTimes.length * 2);
    }
    sideTimes[sideCount++] = eventTimeMs;
  }

  /** An event to aggregate, in (partition, offset) order. */
  public void event(int partition, long offset, long eventTimeMs, SortRecord.Event e) {
    if (partition != aggregatorPartition) {
      flush();
      aggregator =
          hopping // the node's lateness, judged per window
              ? new PartitionAggregator(partition, 0, slices, delayMs, allowedLatenessMs, spec)
              // allowed lateness "forever": the side topics decided what was late
              : new PartitionAggregator(partition, 0, slices, 0, Long.MAX_VALUE, spec);
      aggregatorPartition = partition;
    }
    long firstWindowEndMs = Long.MIN_VALUE;
    if (hopping) {
      aggregator.adoptFrontier(e.watermarkMs);
      firstWindowEndMs = aggregator.hoppingFirstWindowEndMs(eventTimeMs);
      if (firstWindowEndMs == Long.MAX_VALUE) {
        if (eventTimeMs >= fromMs && eventTimeMs < toMs) {
          tally.eventsUnaccounted++;
          tally.issue(
              AccountingIssue.Kind.LATE_NOT_IN_LATE_TOPIC,
              partition,
              offset,
              "past lateness for every window it belongs to (partition watermark "
                  + e.watermarkMs
                  + " ms when it arrived) but not in the late topic");
        }
        return;
      }
    }
    try {
      PartitionAggregator.Outcome outcome =
          aggregator.update(
              key, eventTimeMs, e.numeric, e.distinct, e.frequency, e.quantile, e.dimensions);
      if (outcome != PartitionAggregator.Outcome.ACCEPTED) {
        throw new IllegalStateException("the aggregator refused an event it had accepted");
      }
    } catch (IllegalArgumentException refused) {
      // the node routes such an event to the DLQ (invalid_value); this one is not there
      if (eventTimeMs < fromMs || eventTimeMs >= toMs) {
        return;
      }
      tally.eventsUnaccounted++;
      tally.issue(
          AccountingIssue.Kind.REFUSED_NOT_IN_DLQ,
          partition,
          offset,
          "the aggregate refuses a value (" + refused.getMessage() + "); no DLQ record names it");
      return;
    }
    keyEvents++;
    if (exactDistinct || exactQuantiles || exactFrequencies) {
      exact
          .computeIfAbsent(slices.sliceStartMs(eventTimeMs), s -> new TreeMap<>())
          .computeIfAbsent(
              firstWindowEndMs,
              c -> new ExactSlice(exactDistinct, exactQuantiles, exactFrequencies))
          .update(e.distinct, e.frequency, e.quantile);
    }
    if (++sinceEmit >= EMIT_EVERY) {
      // slices the partition's event time has passed are encoded;
      // the merger keeps the latest Partial of each
      sinceEmit = 0;
      aggregator.emit(merger::accept);
    }
  }

  private void flush() {
    if (aggregator != null) {
      aggregator.finalizeOpenSlices();
      aggregator.emit(merger::accept);
      // the close point the end of input reached: every result of the open slices can close
      watermarkMs = Math.max(watermarkMs, aggregator.watermark(false).closeMs());
      aggregator = null;
      aggregatorPartition = -1;
    }
  }

  /** Ends the key: recomputes its results and compares them with the streamed ones. */
  public void end() {
    flush();
    List<FinalResult> expected = new ArrayList<>();
    if (watermarkMs != Long.MIN_VALUE) {
      for (int p = 0; p < sourcePartitions; p++) {
        merger.accept(new Watermark(p, 0, watermarkMs, false));
      }
      merger.advance(
          r -> {
            if (!r.superseded() && r.windowStartMs() >= fromMs && r.windowEndMs() <= toMs) {
              expected.add(r);
            }
          });
    }
    Arrays.sort(sideTimes, 0, sideCount);
    tally.peakKeyResults = Math.max(tally.peakKeyResults, expected.size());
    tally.peakKeyEvents = Math.max(tally.peakKeyEvents, keyEvents);
    tally.resultsExpected += expected.size();

    // the live streamed results of the range
    Map<String, Streamed> live = new HashMap<>();
    for (Map.Entry<String, Streamed> e : streamed.entrySet()) {
      Streamed s = e.getValue();
      if (s.covered(fromMs, toMs)) {
        if (s.superseded) {
          tally.resultsSuperseded++;
        } else {
          live.put(e.getKey(), s);
        }
      }
    }
    tally.resultsStreamed += live.size();

    Map<String, Long> expectedCounts = new HashMap<>();
    for (FinalResult r : expected) {
      String resultKey = formatter.resultKey(key, r.windowStartMs());
      expectedCounts.put(resultKey, r.aggregate().count());
      compare(resultKey, r, streamed.get(resultKey));
    }
    for (Map.Entry<String, Streamed> e : live.entrySet()) {
      if (!expectedCounts.containsKey(e.getKey())) {
        Streamed s = e.getValue();
        tally.difference(
            new ResultDifference(
                e.getKey(),
                ResultDifference.Kind.UNEXPECTED,
                0,
                s.count,
                s.revision,
                List.of(),
                sideEvents(s.startMs, s.endMs),
                null));
        correct(
            e.getKey(),
            s.startMs,
            s.endMs,
            Aggregate.empty(spec),
            null,
            s.revision + 1); // the truth is "no events"
      }
    }
    account(expected, live);
    merger = null;
  }

  private void compare(String resultKey, FinalResult r, Streamed s) {
    long count = r.aggregate().count();
    long side = sideEvents(r.windowStartMs(), r.windowEndMs());
    if (s == null || s.superseded) {
      tally.difference(
          new ResultDifference(
              resultKey,
              ResultDifference.Kind.MISSING,
              count,
              0,
              s == null ? -1 : s.revision,
              List.of(),
              side,
              s == null ? null : "the latest streamed record is superseded by " + s.supersededBy));
      correct(
          resultKey,
          r.windowStartMs(),
          r.windowEndMs(),
          r.aggregate(),
          r.dimensions(),
          s == null ? 0 : s.revision + 1);
      return;
    }
    JsonNode expectedJson =
        parse(
            formatter.format(
                key,
                r.windowStartMs(),
                r.windowEndMs(),
                r.aggregate(),
                s.revision,
                r.dimensions(),
                null));
    List<ResultDifference.FieldDifference> fields = new ArrayList<>();
    compareExact("", expectedJson, s.root, fields);
    if (!fields.isEmpty()) {
      tally.difference(
          new ResultDifference(
              resultKey,
              ResultDifference.Kind.MISMATCH,
              count,
              s.count,
              s.revision,
              fields,
              side,
              null));
      correct(
          resultKey,
          r.windowStartMs(),
          r.windowEndMs(),
          r.aggregate(),
          r.dimensions(),
          s.revision + 1);
      return;
    }
    tally.resultsMatching++;
    checkSketches(resultKey, r, expectedJson.path("value"), s.root.path("value"));
  }

  /** Compares every exact field of {@code expected} (recursively) with {@code streamed}. */
  private static void compareExact(
      String path,
      JsonNode expected,
      JsonNode streamed,
      List<ResultDifference.FieldDifference> out) {
    Iterator<Map.Entry<String, JsonNode>> it = expected.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> f = it.next();
      String name = f.getKey();
      JsonNode ev = f.getValue();
      if (name.equals("revision") || IGNORED.contains(name)) {
        continue;
      }
      if (ev.isArray() || (ev.isObject() && ev.has("estimate"))) {
        continue; // sketches: checked against exact values and their bounds
      }
      JsonNode sv = streamed == null ? null : streamed.get(name);
      String field = path.isEmpty() || path.equals("value") ? name : path + "." + name;
      if (ev.isObject()) {
        if (sv == null || !sv.isObject()) {
          out.add(new ResultDifference.FieldDifference(field, ev.toString(), text(sv)));
        } else {
          compareExact(path.isEmpty() ? name : path + "." + name, ev, sv, out);
        }
        continue;
      }
      if (sv == null || !sameScalar(ev, sv)) {
        out.add(new ResultDifference.FieldDifference(field, ev.toString(), text(sv)));
      }
    }
  }

  /** Provenance fields describe who wrote a result, not what it says. */
  private static final Set<String> IGNORED = Set.of("source", "provenance");

  private static String text(JsonNode n) {
    return n == null ? "absent" : n.toString();
  }

  private static boolean sameScalar(JsonNode a, JsonNode b) {
    if (a.isNumber() && b.isNumber()) {
      if (a.isIntegralNumber() && b.isIntegralNumber()) {
        return a.asLong() == b.asLong();
      }
      return Double.compare(a.asDouble(), b.asDouble()) == 0;
    }
    return a.equals(b);
  }

  private void checkSketches(
      String resultKey, FinalResult r, JsonNode expected, JsonNode streamed) {
    Collection<ExactSlice> covered = null;
    Iterator<Map.Entry<String, JsonNode>> it = expected.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> f = it.next();
      String name = f.getKey();
      JsonNode ev = f.getValue();
      boolean distinct = ev.isObject() && ev.has("rse");
      boolean quantile = ev.isObject() && ev.has("rank_error") && quantileFields.containsKey(name);
      boolean top = ev.isArray() && exactFrequencies;
      if (!distinct && !quantile && !top) {
        continue;
      }
      if (covered == null) {
        covered = new ArrayList<>();
        for (TreeMap<Long, ExactSlice> parts :
            exact
                .subMap(slices.sliceStartMs(r.windowStartMs()), true, r.windowEndMs(), false)
                .values()) {
          // the parts whose first window is this one or an earlier one
          covered.addAll(parts.headMap(r.windowEndMs(), true).values());
        }
      }
      JsonNode sv = streamed.get(name);
      if (distinct) {
        checkDistinct(resultKey, name, sv, covered);
      } else if (quantile) {
        checkQuantile(resultKey, name, quantileFields.get(name), sv, covered);
      } else {
        checkTop(resultKey, name, sv, covered);
      }
    }
  }

  private void checkDistinct(
      String resultKey, String field, JsonNode sv, Collection<ExactSlice> covered) {
    tally.distinctChecked++;
    long exactCount = covered.isEmpty() ? 0 : ExactSlice.distinctCount(covered);
    if (sv == null || !sv.path("estimate").isNumber()) {
      tally.distinctFlagged++;
      tally.sketchFlag(
          new SketchFlag(resultKey, field, text(sv), Long.toString(exactCount), "a number"));
      return;
    }
    long estimate = sv.path("estimate").asLong();
    double rse = sv.path("rse").asDouble(Double.NaN);
    double bound = sigmas * rse * exactCount;
    if (!(Math.abs(estimate - exactCount) <= bound)) {
      tally.distinctFlagged++;
      tally.sketchFlag(
          new SketchFlag(
              resultKey,
              field,
              Long.toString(estimate),
              Long.toString(exactCount),
              String.format(
                  "[%.1f, %.1f] (%s x rse %s)",
                  exactCount - bound, exactCount + bound, fmt(sigmas), fmt(rse))));
    }
  }

  private void checkQuantile(
      String resultKey, String field, double q, JsonNode sv, Collection<ExactSlice> covered) {
    tally.quantilesChecked++;
    double[] values = ExactSlice.sortedValues(covered);
    int n = values.length;
    if (sv == null || !sv.path("estimate").isNumber() || n == 0) {
      tally.quantilesFlagged++;
      tally.sketchFlag(
          new SketchFlag(resultKey, field, text(sv), n + " values", "an estimate of " + n));
      return;
    }
    double estimate = sv.path("estimate").asDouble();
    double rankError = sv.path("rank_error").asDouble(Double.NaN);
    // the estimate's exact rank interval [lo, hi] against q ± (rank_error + 1/n)
    int below = lowerBound(values, estimate);
    int atOrBelow = upperBound(values, estimate);
    double lo = below / (double) n;
    double hi = atOrBelow / (double) n;
    double slack = rankError + 1.0 / n;
    if (!(hi >= q - slack && lo <= q + slack)) {
      tally.quantilesFlagged++;
      double nearest = values[Math.max(0, Math.min(n - 1, (int) Math.ceil(q * n) - 1))];
      tally.sketchFlag(
          new SketchFlag(
              resultKey,
              field,
              fmt(estimate),
              String.format(
                  "%s (the estimate's exact rank is in [%.5f, %.5f])", fmt(nearest), lo, hi),
              String.format("rank in [%.5f, %.5f]", q - slack, q + slack)));
    }
  }

  private void checkTop(
      String resultKey, String field, JsonNode sv, Collection<ExactSlice> covered) {
    if (sv == null || !sv.isArray()) {
      tally.heavyHittersChecked++;
      tally.heavyHittersFlagged++;
      tally.sketchFlag(new SketchFlag(resultKey, field, text(sv), "-", "a list"));
      return;
    }
    for (JsonNode h : sv) {
      tally.heavyHittersChecked++;
      String item = h.path("item").asText();
      long estimate = h.path("estimate").asLong();
      long error = h.path("error").asLong();
      long exactCount = ExactSlice.frequency(covered, item);
      if (exactCount > estimate || exactCount < estimate - error) {
        tally.heavyHittersFlagged++;
        tally.sketchFlag(
            new SketchFlag(
                resultKey,
                field,
                item + "=" + estimate,
                Long.toString(exactCount),
                "[" + (estimate - error) + ", " + estimate + "]"));
      }
    }
  }

  private static int lowerBound(double[] a, double v) {
    int lo = 0;
    int hi = a.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (a[mid] < v) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private static int upperBound(double[] a, double v) {
    int lo = 0;
    int hi = a.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (a[mid] <= v) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private static String fmt(double d) {
    return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
  }

  /**
   * Accounts for events by checked intervals in which every event lies in exactly one result:
   * tumbling windows; for hopping windows those starting {@code size} apart from the first window
   * of the range; for sessions the groups of overlapping expected and streamed sessions.
   */
  private void account(List<FinalResult> expected, Map<String, Streamed> live) {
    List<long[]> tiles = new ArrayList<>(); // {startMs, endMs, expectedCount, streamedCount}
    if (shape instanceof WindowShape.Session) {
      TreeMap<Long, long[]> intervals = new TreeMap<>(); // by start: {end, expected, streamed}
      for (FinalResult r : expected) {
        intervals.merge(
            r.windowStartMs(),
            new long[] {r.windowEndMs(), r.aggregate().count(), 0},
            KeyReconciler::sumInterval);
      }
      for (Streamed s : live.values()) {
        intervals.merge(s.startMs, new long[] {s.endMs, 0, s.count}, KeyReconciler::sumInterval);
      }
      long[] current = null;
      for (Map.Entry<Long, long[]> e : intervals.entrySet()) {
        long[] v = e.getValue();
        if (current != null && e.getKey() < current[1]) {
          current[1] = Math.max(current[1], v[0]);
          current[2] += v[1];
          current[3] += v[2];
        } else {
          current = new long[] {e.getKey(), v[0], v[1], v[2]};
          tiles.add(current);
        }
      }
    } else {
      long step = 0;
      long first = 0;
      if (shape instanceof WindowShape.Hopping h) {
        step = h.sizeMs();
        first = Math.floorDiv(fromMs + h.hopMs() - 1, h.hopMs()) * h.hopMs();
      }
      Map<Long, long[]> byStart = new TreeMap<>();
      for (FinalResult r : expected) {
        if (step == 0 || Math.floorMod(r.windowStartMs() - first, step) == 0) {
          byStart
                  .computeIfAbsent(r.windowStartMs(), s -> new long[] {s, r.windowEndMs(), 0, 0})[
                  2] +=
              r.aggregate().count();
        }
      }
      for (Streamed s : live.values()) {
        if (step == 0 || Math.floorMod(s.startMs - first, step) == 0) {
          byStart.computeIfAbsent(s.startMs, x -> new long[] {x, s.endMs, 0, 0})[3] += s.count;
        }
      }
      tiles.addAll(byStart.values());
    }
    for (long[] t : tiles) {
      long diff = t[2] - t[3];
      if (diff > 0) {
        tally.eventsUnaccounted += diff;
      } else if (diff < 0) {
        long excess = -diff;
        long side = sideEvents(t[0], t[1]);
        long explained = Math.min(excess, side);
        tally.eventsDoubleAccounted += explained;
        tally.eventsUnexpected += excess - explained;
      }
    }
  }

  private static long[] sumInterval(long[] a, long[] b) {
    return new long[] {Math.max(a[0], b[0]), a[1] + b[1], a[2] + b[2]};
  }

  /** Side-topic events of this key with event time in [startMs, endMs). */
  private long sideEvents(long startMs, long endMs) {
    int lo = lowerBoundLong(sideTimes, sideCount, startMs);
    int hi = lowerBoundLong(sideTimes, sideCount, endMs);
    return hi - lo;
  }

  private static int lowerBoundLong(long[] a, int n, long v) {
    int lo = 0;
    int hi = n;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (a[mid] < v) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private void correct(
      String resultKey,
      long startMs,
      long endMs,
      Aggregate aggregate,
      String[] dimensions,
      int revision) {
    if (corrections == null) {
      return;
    }
    ObjectNode root =
        (ObjectNode)
            parse(formatter.format(key, startMs, endMs, aggregate, revision, dimensions, null));
    JsonNode value = root.get("value");
    if (value instanceof ObjectNode v) {
      v.put("source", "batch");
    }
    try {
      corrections.accept(resultKey, JSON.writeValueAsBytes(root));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a parsed tree always serialises", e);
    }
  }

  private static JsonNode parse(byte[] json) {
    try {
      return JSON.readTree(json);
    } catch (IOException e) {
      throw new IllegalStateException("ResultFormatter wrote invalid JSON", e);
    }
  }

  /** The latest streamed record of a result key, as far as a reconciliation needs it. */
  private static final class Streamed {
    final JsonNode root;
    final int partition;
    final long offset;
    final int revision;
    final long startMs;
    final long endMs; // exclusive
    final long count;
    final boolean superseded;
    final String supersededBy;

    private Streamed(
        JsonNode root,
        int partition,
        long offset,
        int revision,
        long startMs,
        long endMs,
        long count,
        String supersededBy) {
      this.root = root;
      this.partition = partition;
      this.offset = offset;
      this.revision = revision;
      this.startMs = startMs;
      this.endMs = endMs;
      this.count = count;
      this.superseded = supersededBy != null;
      this.supersededBy = supersededBy;
    }

    /** The envelope's interval and count, or null when it is not a result. */
    static Streamed parse(JsonNode root, int partition, long offset) {
      JsonNode v = root.path("value");
      if (!v.isObject()) {
        return null;
      }
      long start;
      long end;
      if (v.has("session_start_ms")) {
        start = v.path("session_start_ms").asLong(Long.MIN_VALUE);
        end = v.path("session_end_ms").asLong(Long.MIN_VALUE) + 1;
      } else {
        start = v.path("window_start_ms").asLong(Long.MIN_VALUE);
        end = v.path("window_end_ms").asLong(Long.MIN_VALUE);
      }
      if (start == Long.MIN_VALUE || end == Long.MIN_VALUE || !v.path("event_count").isNumber()) {
        return null;
      }
      String supersededBy = v.has("superseded_by") ? v.path("superseded_by").asText() : null;
      return new Streamed(
          root,
          partition,
          offset,
          v.path("revision").asInt(-1),
          start,
          end,
          v.path("event_count").asLong(),
          supersededBy);
    }

    boolean covered(long fromMs, long toMs) {
      return startMs >= fromMs && endMs <= toMs;
    }
  }

  /** The start of a results-topic record's interval, or null when it is not a result. */
  public static Long startOf(JsonNode root) {
    Streamed s = Streamed.parse(root, 0, 0);
    return s == null ? null : s.startMs;
  }
}

package dev.skewer.coordinator.query;

import dev.skewer.core.job.HoppingWindow;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.NumericField;
import dev.skewer.core.job.OutputSpec;
import dev.skewer.core.job.SessionWindow;
import dev.skewer.core.job.TumblingWindow;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The answers of the query API, as JSON, from the {@link ResultsView}, the {@link SideOutputStats},
 * the partitions' {@link StageStatus} and the nodes' {@link NodeLoad}. Every method validates its
 * parameters and throws {@link BadParameter} (a 400 naming the parameter) or {@link NotFound} (a
 * 404). Blocking (reads Hazelcast): call off the event loop. Thread-safe.
 *
 * <p>Field by field, the answers are documented in {@code docs/api.md} and described by the OpenAPI
 * document {@code /api/v1/openapi.json}.
 */
public final class QueryService {

  /** The largest k a top-K answers. */
  public static final int MAX_K = 10_000;

  /** The most windows {@code /api/v1/windows} lists. */
  public static final int MAX_WINDOWS_LISTED = 1_000;

  /** The longest key {@code /api/v1/keys/{key}} accepts. */
  public static final int MAX_KEY_LENGTH = 1_024;

  /** How often the query side refreshes the partitions' status snapshot. */
  public static final long STATUS_CACHE_MS = 100;

  private static final double Z95 = 1.959964;

  private final JobSpec job;
  private final ResultsView view;
  private final SideOutputStats side;
  private final StageStatusStore stages;
  private final NodeLoad load; // null: no node load
  private final Clock clock;
  private final List<String> numericNames;
  private volatile Map<Integer, StageStatus> cachedStatus = Map.of();
  private volatile long cachedStatusAtMs = Long.MIN_VALUE;

  public QueryService(
      JobSpec job,
      ResultsView view,
      SideOutputStats side,
      StageStatusStore stages,
      NodeLoad load,
      Clock clock) {
    this.job = job;
    this.view = view;
    this.side = side;
    this.stages = stages;
    this.load = load;
    this.clock = clock;
    this.numericNames = job.input().numericFields().stream().map(NumericField::name).toList();
  }

  // ---------------------------------------------------------------- parameters

  /** Refuses parameters other than {@code allowed} and repeated ones. */
  public static void checkParameters(Map<String, List<String>> params, Set<String> allowed) {
    for (Map.Entry<String, List<String>> e : params.entrySet()) {
      if (!allowed.contains(e.getKey())) {
        throw new BadParameter(
            e.getKey(),
            "unknown parameter '"
                + clip(e.getKey())
                + "'"
                + (allowed.isEmpty() ? ": this endpoint takes none" : "; allowed: " + allowed));
      }
      if (e.getValue().size() > 1) {
        throw new BadParameter(e.getKey(), "parameter '" + e.getKey() + "' given more than once");
      }
    }
  }

  private static String param(Map<String, List<String>> params, String name) {
    List<String> v = params.get(name);
    return v == null || v.isEmpty() ? null : v.get(0);
  }

  private static int intParam(
      Map<String, List<String>> params, String name, int dflt, int min, int max) {
    String raw = param(params, name);
    if (raw == null) {
      return dflt;
    }
    int v;
    try {
      v = Integer.parseInt(raw.trim());
    } catch (NumberFormatException e) {
      v = Integer.MIN_VALUE;
    }
    if (v < min || v > max) {
      throw new BadParameter(
          name,
          name + " must be an integer in [" + min + ", " + max + "], was '" + clip(raw) + "'");
    }
    return v;
  }

  /** Epoch milliseconds, or an ISO-8601 instant such as 2024-01-01T10:00:00Z. */
  private static Long timeParam(Map<String, List<String>> params, String name) {
    String raw = param(params, name);
    if (raw == null) {
      return null;
    }
    String s = raw.trim();
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException notMillis) {
      try {
        return Instant.parse(s).toEpochMilli();
      } catch (DateTimeParseException | ArithmeticException notInstant) {
        throw new BadParameter(
            name,
            name
                + " must be epoch milliseconds or an ISO-8601 instant (2024-01-01T10:00:00Z), was '"
                + clip(raw)
                + "'");
      }
    }
  }

  static String clip(String s) {
    return s.length() <= 64 ? s : s.substring(0, 64) + "...";
  }

  // ---------------------------------------------------------------- top-K

  /** {@code GET /api/v1/topk?by=&window=&k=&field=}. */
  public JsonObject topK(Map<String, List<String>> params) {
    checkParameters(params, Set.of("by", "window", "k", "field"));
    String byRaw = param(params, "by");
    Ranking.By by;
    if (byRaw == null) {
      by = Ranking.By.COUNT;
    } else {
      by =
          switch (byRaw) {
            case "count" -> Ranking.By.COUNT;
            case "sum" -> Ranking.By.SUM;
            case "distinct" -> Ranking.By.DISTINCT;
            default ->
                throw new BadParameter(
                    "by", "by must be one of count, sum, distinct, was '" + clip(byRaw) + "'");
          };
    }
    String fieldRaw = param(params, "field");
    Ranking ranking;
    if (by == Ranking.By.SUM) {
      if (numericNames.isEmpty()) {
        throw new BadParameter("by", "by=sum: the job has no numeric field");
      }
      int field = fieldRaw == null ? 0 : numericNames.indexOf(fieldRaw);
      if (field < 0) {
        throw new BadParameter(
            "field",
            "field must be one of the job's numeric fields "
                + numericNames
                + ", was '"
                + clip(fieldRaw)
                + "'");
      }
      ranking = Ranking.sum(field);
    } else {
      if (fieldRaw != null) {
        throw new BadParameter("field", "field is only used with by=sum");
      }
      if (by == Ranking.By.DISTINCT && job.input().distinctPointer() == null) {
        throw new BadParameter("by", "by=distinct: the job counts no distinct values");
      }
      ranking = by == Ranking.By.COUNT ? Ranking.COUNT : Ranking.DISTINCT;
    }
    String kRaw = param(params, "k");
    if (kRaw != null) {
      try {
        long k = Long.parseLong(kRaw.trim());
        if (k > MAX_K) {
          throw new BadParameter(
              "k", "k must be at most " + MAX_K + " (the documented limit), was " + k);
        }
      } catch (NumberFormatException ignored) {
        // reported below
      }
    }
    int k = intParam(params, "k", 10, 1, MAX_K);
    String window = param(params, "window");
    if (window == null) {
      window = "latest";
    }
    if (job.window() instanceof SessionWindow) {
      throw new NotFound(
          "the job's windows are sessions (one per key): there is no top-K per window;"
              + " ask /api/v1/keys/{key}");
    }
    if (window.equals("open")) {
      return openTopK(ranking, k);
    }
    requireCaughtUp();
    Map<Integer, StageStatus> status = status();
    WindowResults w;
    if (window.equals("latest")) {
      w = latestClosed(status);
      if (w == null) {
        throw new NotFound("no window has closed yet");
      }
    } else {
      long start;
      try {
        start = Long.parseLong(window.trim());
      } catch (NumberFormatException e) {
        throw new BadParameter(
            "window",
            "window must be 'latest', 'open' or a window start in epoch ms, was '"
                + clip(window)
                + "'");
      }
      w = view.window(start);
      if (w == null) {
        throw new NotFound(
            "no results for the window starting at "
                + start
                + " (not closed yet, not a window start, or older than the view keeps)");
      }
    }
    JsonArray keys = new JsonArray();
    int rank = 1;
    for (StoredResult r : w.top(ranking, k)) {
      keys.add(entry(rank++, r));
    }
    int partitions = partitions(status);
    return new JsonObject()
        .put("window_start_ms", w.startMs())
        .put("window_end_ms", w.endMs())
        .put("state", state(w.endMs(), status, partitions))
        .put("speculative", false)
        .put("by", by.label())
        .put("field", by == Ranking.By.SUM ? numericNames.get(ranking.field()) : null)
        .put("k", k)
        .put("partitions_reporting", reporting(w.endMs(), status))
        .put("partitions", partitions)
        .put("keys_in_window", w.keys())
        .put("late_events", side.lateInWindow(w.startMs()))
        .put("keys", keys);
  }

  private JsonObject entry(int rank, StoredResult r) {
    JsonObject e =
        new JsonObject()
            .put("rank", rank)
            .put("key", r.key())
            .put("count", r.count())
            .put("revision", r.revision());
    if (!numericNames.isEmpty()) {
      JsonObject sums = new JsonObject();
      for (int i = 0; i < numericNames.size(); i++) {
        sums.put(numericNames.get(i), finite(r.sums()[i]));
      }
      e.put("sum", sums);
    }
    if (job.input().distinctPointer() != null) {
      e.put("distinct", finite(r.distinct()));
    }
    JsonObject provenance = provenance(r);
    if (provenance != null) {
      e.put("provenance", provenance);
    }
    return e;
  }

  /**
   * The result's provenance object (the envelope's, at the top level or in {@code value}), read
   * alone from where the envelope has it; null when it has none.
   */
  private static JsonObject provenance(StoredResult r) {
    String text = r.provenanceText();
    return text == null ? null : new JsonObject(text);
  }

  private static Double finite(double d) {
    return Double.isFinite(d) ? d : null;
  }

  private JsonObject openTopK(Ranking ranking, int k) {
    Map<Integer, StageStatus> status = status();
    long earliest = Long.MAX_VALUE;
    for (StageStatus s : status.values()) {
      for (OpenWindowTotals o : s.open()) {
        earliest = Math.min(earliest, o.windowStartMs());
      }
    }
    if (earliest == Long.MAX_VALUE) {
      throw new NotFound(
          "no speculative totals for an open window: no coordinator has published early partials"
              + " of a window that is still open");
    }
    long end = Long.MIN_VALUE;
    int reporting = 0;
    List<OpenWindowTotals.KeyTotals> all = new ArrayList<>();
    for (StageStatus s : status.values()) {
      for (OpenWindowTotals o : s.open()) {
        if (o.windowStartMs() == earliest) {
          end = Math.max(end, o.windowEndMs());
          reporting++;
          all.addAll(o.keys());
        }
      }
    }
    List<StoredResult> ranked = new ArrayList<>(all.size());
    for (OpenWindowTotals.KeyTotals t : all) {
      ranked.add(
          new StoredResult(
              t.key(),
              earliest,
              end,
              0,
              t.count(),
              t.sums(),
              t.distinct(),
              false,
              StoredResult.NO_PROVENANCE,
              StoredResult.NO_PROVENANCE,
              new byte[0]));
    }
    ranked.sort(ranking.order());
    JsonArray keys = new JsonArray();
    for (int i = 0; i < Math.min(k, ranked.size()); i++) {
      StoredResult r = ranked.get(i);
      JsonObject e =
          new JsonObject().put("rank", i + 1).put("key", r.key()).put("count", r.count());
      if (!numericNames.isEmpty()) {
        JsonObject sums = new JsonObject();
        for (int f = 0; f < numericNames.size(); f++) {
          sums.put(numericNames.get(f), f < r.sums().length ? finite(r.sums()[f]) : null);
        }
        e.put("sum", sums);
      }
      if (job.input().distinctPointer() != null) {
        e.put("distinct", finite(r.distinct()));
      }
      keys.add(e);
    }
    return new JsonObject()
        .put("window_start_ms", earliest)
        .put("window_end_ms", end)
        .put("state", "open")
        .put("speculative", true)
        .put("by", ranking.by().label())
        .put("field", ranking.by() == Ranking.By.SUM ? numericNames.get(ranking.field()) : null)
        .put("k", k)
        .put("partitions_reporting", reporting)
        .put("partitions", partitions(status))
        .put("keys_in_window", all.size())
        .put("late_events", 0L)
        .put("keys", keys);
  }

  /**
   * The newest retained window that every partials partition with a published status has closed;
   * without any status (none published yet), the newest retained window.
   */
  private WindowResults latestClosed(Map<Integer, StageStatus> status) {
    for (WindowResults w : view.windows().descendingMap().values()) {
      if (status.isEmpty() || reporting(w.endMs(), status) >= status.size()) {
        return w;
      }
    }
    return null;
  }

  // ---------------------------------------------------------------- keys

  /** {@code GET /api/v1/keys/{key}?from=&to=}. */
  public JsonObject key(String key, Map<String, List<String>> params) {
    checkParameters(params, Set.of("from", "to"));
    if (key == null || key.isEmpty()) {
      throw new BadParameter("key", "key must not be empty");
    }
    if (key.length() > MAX_KEY_LENGTH) {
      throw new BadParameter(
          "key", "key must be at most " + MAX_KEY_LENGTH + " characters, was " + key.length());
    }
    Long from = timeParam(params, "from");
    Long to = timeParam(params, "to");
    long fromMs = from == null ? Long.MIN_VALUE : from;
    long toMs = to == null ? Long.MAX_VALUE : to;
    if (fromMs >= toMs) {
      throw new BadParameter("to", "to must be after from (" + fromMs + "), was " + toMs);
    }
    requireCaughtUp();
    List<StoredResult> found = view.key(key, fromMs, toMs);
    if (found.isEmpty()) {
      throw new NotFound(
          "no results for key '"
              + clip(key)
              + "' in the windows the view keeps"
              + (from != null || to != null ? " between from and to" : ""));
    }
    Map<Integer, StageStatus> status = status();
    int partitions = partitions(status);
    JsonArray windows = new JsonArray();
    for (StoredResult r : found) {
      JsonObject envelope = new JsonObject(Buffer.buffer(r.envelope()));
      JsonObject value = envelope.getJsonObject("value", new JsonObject());
      JsonObject w =
          new JsonObject()
              .put("window_start_ms", r.windowStartMs())
              .put("window_end_ms", r.windowEndMs())
              .put("state", state(r.windowEndMs(), status, partitions))
              .put("revision", r.revision())
              .put("event_count", r.count())
              .put("exact", exact(value))
              .put("estimates", estimates(value))
              .put("late_events_in_window", side.lateInWindow(r.windowStartMs()))
              .put("provenance", provenance(r))
              .put("result", envelope);
      windows.add(w);
    }
    return new JsonObject()
        .put("key", key)
        .put("from_ms", from)
        .put("to_ms", to)
        .put("windows", windows);
  }

  private JsonObject exact(JsonObject value) {
    JsonObject out = new JsonObject();
    out.put("event_count", value.getValue("event_count"));
    for (String f : numericNames) {
      for (String prefix : new String[] {"sum_", "min_", "max_"}) {
        if (value.containsKey(prefix + f)) {
          out.put(prefix + f, value.getValue(prefix + f));
        }
      }
    }
    return out;
  }

  /** Every estimate of a result value with its error bars. */
  JsonObject estimates(JsonObject value) {
    JsonObject out = new JsonObject();
    if (job.input().distinctPointer() != null) {
      String name = "distinct_" + job.input().distinctName();
      JsonObject d = value.getJsonObject(name);
      if (d != null && d.getNumber("estimate") != null) {
        double e = d.getNumber("estimate").doubleValue();
        Number rseN = d.getNumber("rse");
        double rse = rseN == null ? Double.NaN : rseN.doubleValue();
        JsonObject o =
            new JsonObject().put("kind", "distinct").put("estimate", e).put("rse", finite(rse));
        if (Double.isFinite(rse)) {
          o.put("ci68", new JsonArray().add(Math.max(0, e * (1 - rse))).add(e * (1 + rse)));
          o.put(
              "ci95",
              new JsonArray().add(Math.max(0, e * (1 - Z95 * rse))).add(e * (1 + Z95 * rse)));
        }
        out.put(name, o);
      }
    }
    if (job.input().quantilePointer() != null) {
      for (double q : job.output().quantiles()) {
        String name = OutputSpec.quantileLabel(q) + "_" + job.input().quantileName();
        JsonObject v = value.getJsonObject(name);
        if (v == null) {
          continue;
        }
        Number re = v.getNumber("rank_error");
        double rankError = re == null ? Double.NaN : re.doubleValue();
        JsonObject o =
            new JsonObject()
                .put("kind", "quantile")
                .put("quantile", q)
                .put("estimate", v.getValue("estimate"))
                .put("rank_error", finite(rankError));
        if (Double.isFinite(rankError)) {
          o.put(
              "rank_interval",
              new JsonArray().add(Math.max(0, q - rankError)).add(Math.min(1, q + rankError)));
        }
        out.put(name, o);
      }
    }
    if (job.input().frequencyPointer() != null && job.output().heavyHitters() > 0) {
      String name = "top_" + job.input().frequencyName();
      JsonArray items = value.getJsonArray(name);
      if (items != null) {
        JsonArray hh = new JsonArray();
        for (Object o : items) {
          if (o instanceof JsonObject h && h.getNumber("estimate") != null) {
            long est = h.getNumber("estimate").longValue();
            long err = h.getNumber("error") == null ? 0 : h.getNumber("error").longValue();
            hh.add(
                new JsonObject()
                    .put("item", h.getString("item"))
                    .put("estimate", est)
                    .put("error", err)
                    .put("interval", new JsonArray().add(Math.max(0, est - err)).add(est)));
          }
        }
        out.put(name, new JsonObject().put("kind", "heavy_hitters").put("items", hh));
      }
    }
    return out;
  }

  // ---------------------------------------------------------------- windows

  /** {@code GET /api/v1/windows?limit=}. */
  public JsonObject windows(Map<String, List<String>> params) {
    checkParameters(params, Set.of("limit"));
    int limit = intParam(params, "limit", 20, 1, MAX_WINDOWS_LISTED);
    if (job.window() instanceof SessionWindow) {
      throw new NotFound("the job's windows are sessions (one per key): ask /api/v1/keys/{key}");
    }
    requireCaughtUp();
    Map<Integer, StageStatus> status = status();
    int partitions = partitions(status);
    TreeMap<Long, JsonObject> rows = new TreeMap<>();
    for (long start : openWindowStarts(status)) {
      rows.put(start, row(start, start + sizeMs(), null, status, partitions));
    }
    int n = 0;
    for (WindowResults w : view.windows().descendingMap().values()) {
      if (n++ >= limit) {
        break;
      }
      rows.put(w.startMs(), row(w.startMs(), w.endMs(), w, status, partitions));
    }
    JsonArray out = new JsonArray();
    for (JsonObject row : rows.descendingMap().values()) {
      if (out.size() >= limit) {
        break;
      }
      out.add(row);
    }
    long global = globalWatermark(status);
    Map.Entry<Long, WindowResults> oldest = view.windows().firstEntry();
    return new JsonObject()
        .put("global_watermark_ms", global == Long.MIN_VALUE ? null : global)
        .put("partitions", partitions)
        .put("windows", out)
        .put(
            "view",
            new JsonObject()
                .put("windows", view.windows().size())
                .put("oldest_window_start_ms", oldest == null ? null : oldest.getKey())
                .put("bytes", view.bytes())
                .put("max_bytes", view.maxBytes())
                .put("evicted_windows", view.evictedWindows()));
  }

  private JsonObject row(
      long startMs, long endMs, WindowResults w, Map<Integer, StageStatus> status, int partitions) {
    return new JsonObject()
        .put("window_start_ms", startMs)
        .put("window_end_ms", endMs)
        .put("state", state(endMs, status, partitions))
        .put("partitions_reporting", reporting(endMs, status))
        .put("partitions", partitions)
        .put("keys", w == null ? 0 : w.keys())
        .put("result_records", w == null ? 0 : w.records())
        .put("revisions", w == null ? 0 : w.revisions())
        .put("late_events", side.lateInWindow(startMs))
        .put("first_result_ms", w == null ? null : w.firstResultMs())
        .put("last_result_ms", w == null ? null : w.lastResultMs());
  }

  private long sizeMs() {
    if (job.window() instanceof TumblingWindow t) {
      return t.size().toMillis();
    }
    return ((HoppingWindow) job.window()).size().toMillis();
  }

  private long hopMs() {
    if (job.window() instanceof TumblingWindow t) {
      return t.size().toMillis();
    }
    return ((HoppingWindow) job.window()).hop().toMillis();
  }

  /**
   * Windows not closed everywhere yet that some source has reached: end above the lowest global
   * watermark, start at or below the highest source watermark plus the watermark delay (the newest
   * event time seen). At most ten.
   */
  private List<Long> openWindowStarts(Map<Integer, StageStatus> status) {
    long global = globalWatermark(status);
    long newest = Long.MIN_VALUE;
    for (StageStatus s : status.values()) {
      for (SourceStatus src : s.sources()) {
        newest = Math.max(newest, src.watermarkMs());
      }
    }
    List<Long> out = new ArrayList<>();
    if (global == Long.MIN_VALUE || newest == Long.MIN_VALUE) {
      return out;
    }
    newest += job.watermark().delay().toMillis();
    long size = sizeMs();
    long hop = hopMs();
    long first = Math.floorDiv(global - size, hop) * hop + hop; // first window ending after global
    for (long start = first; start <= newest && out.size() < 10; start += hop) {
      if (start + size > global) {
        out.add(start);
      }
    }
    return out;
  }

  // ---------------------------------------------------------------- status, lateness

  /** {@code GET /api/v1/status}: what the dashboard shows besides the top-K. */
  public JsonObject status(Map<String, List<String>> params) {
    checkParameters(params, Set.of());
    long now = clock.millis();
    Map<Integer, StageStatus> status = status();
    JsonArray partitionsJson = new JsonArray();
    JsonArray nodesJson = new JsonArray();
    Double imbalance = null;
    if (load != null) {
      List<NodeLoad.PartitionLoad> parts = load.partitions();
      for (NodeLoad.PartitionLoad p : parts) {
        partitionsJson.add(
            new JsonObject()
                .put("partition", p.partition())
                .put("node", p.node())
                .put("events_per_second", p.eventsPerSecond())
                .put("at_ms", p.atMs()));
      }
      Map<String, Double> perNode = NodeLoad.perNode(parts);
      double max = 0;
      double sum = 0;
      for (Map.Entry<String, Double> e : perNode.entrySet()) {
        nodesJson.add(
            new JsonObject().put("node", e.getKey()).put("events_per_second", e.getValue()));
        max = Math.max(max, e.getValue());
        sum += e.getValue();
      }
      if (sum > 0) {
        imbalance = max / (sum / perNode.size());
      }
    }
    JsonArray stageJson = new JsonArray();
    for (StageStatus s : status.values()) {
      int reporting = 0;
      int idle = 0;
      for (SourceStatus src : s.sources()) {
        reporting += src.reported() ? 1 : 0;
        idle += src.idle() ? 1 : 0;
      }
      boolean held = s.globalWatermarkMs() == Long.MIN_VALUE;
      stageJson.add(
          new JsonObject()
              .put("partition", s.partition())
              .put("coordinator", s.coordinator())
              .put("epoch", s.epoch())
              .put("global_watermark_ms", held ? null : s.globalWatermarkMs())
              .put("lag_ms", held ? null : Math.max(0, s.atMs() - s.globalWatermarkMs()))
              .put("held_partials", s.heldPartials())
              .put("sources_reporting", reporting)
              .put("sources", s.sources().size())
              .put("idle_sources", idle)
              .put("at_ms", s.atMs()));
    }
    long global = globalWatermark(status);
    return new JsonObject()
        .put("job", job.name())
        .put("at_ms", now)
        .put("events_per_second", sumRates(nodesJson))
        .put("nodes", nodesJson)
        .put("imbalance", imbalance)
        .put("source_partitions", partitionsJson)
        .put(
            "watermark",
            new JsonObject()
                .put("global_ms", global == Long.MIN_VALUE ? null : global)
                .put("lag_ms", global == Long.MIN_VALUE ? null : Math.max(0, now - global))
                .put("partitions", stageJson))
        .put(
            "late",
            new JsonObject().put("total", side.late()).put("per_second", side.latePerSecond(now)))
        .put(
            "dlq",
            new JsonObject()
                .put("total", side.dlq())
                .put("per_second", side.dlqPerSecond(now))
                .put("by_reason", new JsonObject(new HashMap<>(side.dlqByReason()))))
        .put(
            "results",
            new JsonObject()
                .put("total", view.records())
                .put("per_second", view.recordsPerSecond(now)));
  }

  private static double sumRates(JsonArray nodes) {
    double s = 0;
    for (Object o : nodes) {
      s += ((JsonObject) o).getDouble("events_per_second");
    }
    return s;
  }

  /** {@code GET /api/v1/lateness}. */
  public JsonObject lateness(Map<String, List<String>> params) {
    checkParameters(params, Set.of());
    LatenessAdvice a = LatenessAdvice.of(side, job.allowedLateness());
    LatenessHistogram h = side.lateness();
    JsonArray buckets = new JsonArray();
    for (LatenessHistogram.Bucket b : h.buckets()) {
      buckets.add(
          new JsonObject()
              .put("from_ms", b.fromMs())
              .put("to_ms", b.toMs())
              .put("count", b.count()));
    }
    JsonObject needed = null;
    if (a.measured() > 0) {
      needed =
          new JsonObject()
              .put("p50", h.valueAtQuantile(0.5))
              .put("p90", h.valueAtQuantile(0.9))
              .put("p99", a.keep99Ms())
              .put("p99_9", a.keep999Ms())
              .put("max", a.maxMs());
    }
    return new JsonObject()
        .put("allowed_lateness_ms", a.allowedLatenessMs())
        .put("late_events", a.lateEvents())
        .put("measured", a.measured())
        .put("late_per_second", side.latePerSecond(clock.millis()))
        .put(
            "advice",
            a.measured() == 0
                ? null
                : new JsonObject()
                    .put("keep_99_ms", a.keep99Ms())
                    .put("keep_99_9_ms", a.keep999Ms()))
        .put("text", a.text())
        .put("needed_lateness_ms", needed)
        .put("histogram", buckets);
  }

  // ---------------------------------------------------------------- helpers

  /**
   * Refuses (503) to answer from the view before it has read what the results topic held at start:
   * until then a window could be missing keys.
   */
  private void requireCaughtUp() {
    if (!view.caughtUp()) {
      throw new Unavailable(
          "this coordinator's view is still reading the results topic ("
              + view.records()
              + " results read so far): retry shortly or ask another coordinator");
    }
  }

  /**
   * The partitions' status: the snapshot {@link #refreshStatus} took (every {@value
   * #STATUS_CACHE_MS} ms on the query side's own thread), so a request never waits on Hazelcast;
   * read directly when no snapshot is younger than a second (tests, a stalled refresher).
   */
  Map<Integer, StageStatus> status() {
    long now = clock.millis();
    if (cachedStatusAtMs == Long.MIN_VALUE || now - cachedStatusAtMs > 1_000) {
      refreshStatus();
    }
    return cachedStatus;
  }

  /** Reads every partition's status from the store (blocking). */
  public void refreshStatus() {
    cachedStatus = stages.all();
    cachedStatusAtMs = clock.millis();
  }

  private int partitions(Map<Integer, StageStatus> status) {
    int n = job.topics().partialsPartitions();
    for (int q : status.keySet()) {
      n = Math.max(n, q + 1);
    }
    return n;
  }

  private static int reporting(long windowEndMs, Map<Integer, StageStatus> status) {
    int n = 0;
    for (StageStatus s : status.values()) {
      if (s.closed(windowEndMs)) {
        n++;
      }
    }
    return n;
  }

  private static String state(long windowEndMs, Map<Integer, StageStatus> status, int partitions) {
    int r = reporting(windowEndMs, status);
    return r >= partitions ? "closed" : (r > 0 ? "closing" : "open");
  }

  private static long globalWatermark(Map<Integer, StageStatus> status) {
    Collection<StageStatus> all = status.values();
    long min = Long.MAX_VALUE;
    for (StageStatus s : all) {
      if (s.globalWatermarkMs() == Long.MIN_VALUE) {
        return Long.MIN_VALUE;
      }
      min = Math.min(min, s.globalWatermarkMs());
    }
    return all.isEmpty() ? Long.MIN_VALUE : min;
  }
}

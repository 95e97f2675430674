package dev.skewer.reconcile;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * What a reconciliation found: totals, every difference (up to the listing cap), memory use and the
 * exit code. {@link #toJson()} is the report file (fields in docs/reconcile.md); {@link
 * #summaryTable()} the terminal summary.
 *
 * @param job the job name
 * @param window the window shape, as {@code tumbling 60000ms}, {@code hopping 10000ms/2000ms} or
 *     {@code session gap 2000ms}
 * @param fromMs the range start (inclusive)
 * @param toMs the range end (exclusive)
 * @param marginMs the read margin either side of the range
 * @param input per input partition, the offsets read
 * @param totals the counts
 * @param differences results that differ (at most the listing cap)
 * @param sketchFlags estimates outside their error bars (at most the listing cap)
 * @param accountingIssues input records not in exactly one place (at most the listing cap)
 * @param truncated whether a list was cut at the cap (the totals count everything)
 * @param memory what the run held and spilled
 * @param correctionsTopic where corrections were written, or null
 * @param warnings conditions that may make the comparison incomplete
 * @param elapsed wall time of the run
 */
public record ReconcileReport(
    String job,
    String window,
    long fromMs,
    long toMs,
    long marginMs,
    List<InputRange> input,
    Totals totals,
    List<ResultDifference> differences,
    List<SketchFlag> sketchFlags,
    List<AccountingIssue> accountingIssues,
    boolean truncated,
    Memory memory,
    String correctionsTopic,
    List<String> warnings,
    Duration elapsed) {

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  public ReconcileReport {
    input = List.copyOf(input);
    differences = List.copyOf(differences);
    sketchFlags = List.copyOf(sketchFlags);
    accountingIssues = List.copyOf(accountingIssues);
    warnings = List.copyOf(warnings);
  }

  /**
   * The input offsets read from one partition.
   *
   * @param partition the input partition
   * @param startOffset the first offset read
   * @param endOffset the offset after the last one read
   */
  public record InputRange(int partition, long startOffset, long endOffset) {}

  /**
   * The counts of a reconciliation.
   *
   * @param recordsRead input records read (the range plus the margins)
   * @param eventsInRange input records whose event time — or, for records the decoder refuses,
   *     whose record timestamp — is in [from, to)
   * @param eventsAggregated of those, the ones neither side topic holds (the recomputation's input)
   * @param eventsLate of those, the ones the late topic holds
   * @param eventsDlq of those, the ones the DLQ holds
   * @param eventsUnaccounted events in no result and no side topic: per checked interval the
   *     recomputed count minus the streamed count where positive, plus refused records not in the
   *     DLQ
   * @param eventsDoubleAccounted events counted in a result although a side topic holds them (an
   *     excess explained by side-topic events of that interval), plus records in both side topics
   * @param eventsUnexpected events counted in results beyond the recomputation and not explained by
   *     side topics
   * @param resultsExpected recomputed results whose interval lies inside [from, to)
   * @param resultsStreamed live streamed results (latest record per result key, not superseded)
   *     whose interval lies inside [from, to)
   * @param resultsMatching expected results whose streamed record has every exact field equal
   * @param resultsMismatched expected results whose streamed record differs in an exact field
   * @param resultsMissing expected results without a live streamed record
   * @param resultsUnexpected streamed results without an expected one
   * @param resultsSuperseded streamed sessions in the range whose latest record is superseded
   * @param resultsUnreadable results-topic records that are not a result envelope
   * @param distinctChecked distinct-count estimates compared with the exact count
   * @param distinctFlagged of those, outside {@code sigmas × rse × exact}
   * @param quantilesChecked quantile estimates compared with the exact values
   * @param quantilesFlagged of those, whose exact rank is further than {@code rank_error} (+1/n)
   * @param heavyHittersChecked heavy-hitter entries compared with exact item counts
   * @param heavyHittersFlagged of those, whose exact count is outside {@code [estimate − error,
   *     estimate]}
   * @param sideRecords late-topic and DLQ records read
   * @param sideRecordsWithoutSource of those, without {@code skewer.source.*} headers
   * @param correctionsWritten corrections written to the corrections topic
   * @param recordIssues input records not in exactly one place ({@link AccountingIssue}s, all of
   *     them, listed or not)
   */
  public record Totals(
      long recordsRead,
      long eventsInRange,
      long eventsAggregated,
      long eventsLate,
      long eventsDlq,
      long eventsUnaccounted,
      long eventsDoubleAccounted,
      long eventsUnexpected,
      long resultsExpected,
      long resultsStreamed,
      long resultsMatching,
      long resultsMismatched,
      long resultsMissing,
      long resultsUnexpected,
      long resultsSuperseded,
      long resultsUnreadable,
      long distinctChecked,
      long distinctFlagged,
      long quantilesChecked,
      long quantilesFlagged,
      long heavyHittersChecked,
      long heavyHittersFlagged,
      long sideRecords,
      long sideRecordsWithoutSource,
      long correctionsWritten,
      long recordIssues) {}

  /**
   * What the run held in memory and spilled to disk.
   *
   * @param budgetBytes the sort buffer's budget
   * @param sortedRecords records sorted (streamed results, side events, events to aggregate)
   * @param spilledRecords records written to run files
   * @param spillRuns run files written
   * @param spilledBytes bytes written to run files (merge passes included)
   * @param peakBufferBytes the most the sort buffer held
   * @param sideIndexBytes the side index (8 bytes per side record)
   * @param peakKeyResults the most recomputed results (key, window) held for one key
   * @param peakKeyEvents the most events aggregated for one key
   */
  public record Memory(
      long budgetBytes,
      long sortedRecords,
      long spilledRecords,
      int spillRuns,
      long spilledBytes,
      long peakBufferBytes,
      long sideIndexBytes,
      long peakKeyResults,
      long peakKeyEvents) {}

  /** Whether every exact field matched and every event is accounted for. */
  public boolean exactMatch() {
    return totals.resultsMismatched() == 0
        && totals.resultsMissing() == 0
        && totals.resultsUnexpected() == 0
        && totals.eventsUnaccounted() == 0
        && totals.eventsDoubleAccounted() == 0
        && totals.eventsUnexpected() == 0
        && totals.recordIssues() == 0;
  }

  /** Number of sketch estimates outside their error bars. */
  public long sketchesFlagged() {
    return totals.distinctFlagged() + totals.quantilesFlagged() + totals.heavyHittersFlagged();
  }

  /** The process exit code: see {@link ExitCode}. */
  public int exitCode() {
    if (!exactMatch()) {
      return ExitCode.DIFFERENCES;
    }
    return sketchesFlagged() > 0 ? ExitCode.SKETCHES_OUTSIDE_BOUNDS : ExitCode.MATCH;
  }

  /** {@code match}, {@code differences} or {@code sketches_outside_bounds}. */
  public String status() {
    return switch (exitCode()) {
      case ExitCode.MATCH -> "match";
      case ExitCode.SKETCHES_OUTSIDE_BOUNDS -> "sketches_outside_bounds";
      default -> "differences";
    };
  }

  /** The report as JSON (see docs/reconcile.md for every field). */
  public ObjectNode toJson() {
    ObjectNode root = JSON.createObjectNode();
    root.put("job", job);
    root.put("status", status());
    root.put("exit_code", exitCode());
    ObjectNode range = root.putObject("range");
    range.put("from", Instant.ofEpochMilli(fromMs).toString());
    range.put("to", Instant.ofEpochMilli(toMs).toString());
    range.put("from_ms", fromMs);
    range.put("to_ms", toMs);
    range.put("margin_ms", marginMs);
    range.put("window", window);
    range.put("covers", "results whose [start, end) lies inside [from, to)");
    ArrayNode in = root.putArray("input");
    for (InputRange r : input) {
      ObjectNode p = in.addObject();
      p.put("partition", r.partition());
      p.put("start_offset", r.startOffset());
      p.put("end_offset", r.endOffset());
    }
    ObjectNode events = root.putObject("events");
    events.put("read", totals.recordsRead());
    events.put("in_range", totals.eventsInRange());
    events.put("aggregated", totals.eventsAggregated());
    events.put("late", totals.eventsLate());
    events.put("dlq", totals.eventsDlq());
    events.put("unaccounted", totals.eventsUnaccounted());
    events.put("double_accounted", totals.eventsDoubleAccounted());
    events.put("unexpected", totals.eventsUnexpected());
    ObjectNode results = root.putObject("results");
    results.put("expected", totals.resultsExpected());
    results.put("streamed", totals.resultsStreamed());
    results.put("matching", totals.resultsMatching());
    results.put("mismatched", totals.resultsMismatched());
    results.put("missing", totals.resultsMissing());
    results.put("unexpected", totals.resultsUnexpected());
    results.put("superseded", totals.resultsSuperseded());
    results.put("unreadable", totals.resultsUnreadable());
    ObjectNode sketches = root.putObject("sketches");
    sketches.put("distinct_checked", totals.distinctChecked());
    sketches.put("distinct_flagged", totals.distinctFlagged());
    sketches.put("quantiles_checked", totals.quantilesChecked());
    sketches.put("quantiles_flagged", totals.quantilesFlagged());
    sketches.put("heavy_hitters_checked", totals.heavyHittersChecked());
    sketches.put("heavy_hitters_flagged", totals.heavyHittersFlagged());
    ObjectNode side = root.putObject("side_topics");
    side.put("records", totals.sideRecords());
    side.put("without_source_headers", totals.sideRecordsWithoutSource());
    root.put("record_issues", totals.recordIssues());
    ArrayNode diffs = root.putArray("differences");
    for (ResultDifference d : differences) {
      ObjectNode o = diffs.addObject();
      o.put("result_key", d.resultKey());
      o.put("kind", d.kind().name().toLowerCase(Locale.ROOT));
      o.put("expected_count", d.expectedCount());
      o.put("streamed_count", d.streamedCount());
      o.put("streamed_revision", d.streamedRevision());
      o.put("side_events", d.sideEvents());
      ArrayNode f = o.putArray("fields");
      for (ResultDifference.FieldDifference fd : d.fields()) {
        ObjectNode x = f.addObject();
        x.put("field", fd.field());
        x.put("expected", fd.expected());
        x.put("streamed", fd.streamed());
      }
      if (d.note() != null) {
        o.put("note", d.note());
      }
    }
    ArrayNode flags = root.putArray("sketch_flags");
    for (SketchFlag s : sketchFlags) {
      ObjectNode o = flags.addObject();
      o.put("result_key", s.resultKey());
      o.put("field", s.field());
      o.put("estimate", s.estimate());
      o.put("exact", s.exact());
      o.put("allowed", s.allowed());
    }
    ArrayNode issues = root.putArray("accounting_issues");
    for (AccountingIssue a : accountingIssues) {
      ObjectNode o = issues.addObject();
      o.put("kind", a.kind().name().toLowerCase(Locale.ROOT));
      o.put("source_partition", a.sourcePartition());
      o.put("source_offset", a.sourceOffset());
      o.put("detail", a.detail());
    }
    root.put("lists_truncated", truncated);
    ObjectNode mem = root.putObject("memory");
    mem.put("budget_bytes", memory.budgetBytes());
    mem.put("sorted_records", memory.sortedRecords());
    mem.put("spilled_records", memory.spilledRecords());
    mem.put("spill_runs", memory.spillRuns());
    mem.put("spilled_bytes", memory.spilledBytes());
    mem.put("peak_buffer_bytes", memory.peakBufferBytes());
    mem.put("side_index_bytes", memory.sideIndexBytes());
    mem.put("peak_key_results", memory.peakKeyResults());
    mem.put("peak_key_events", memory.peakKeyEvents());
    ObjectNode corr = root.putObject("corrections");
    corr.put("topic", correctionsTopic);
    corr.put("written", totals.correctionsWritten());
    ArrayNode w = root.putArray("warnings");
    warnings.forEach(w::add);
    root.put("elapsed_ms", elapsed.toMillis());
    return root;
  }

  /** The JSON report as indented text. */
  public String toJsonText() {
    try {
      return JSON.writeValueAsString(toJson());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a tree of plain nodes always serialises", e);
    }
  }

  /** The terminal summary: a few aligned lines and a verdict. */
  public String summaryTable() {
    Totals t = totals;
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            "Reconcile %s  %s .. %s  (%s; results inside the range; margin %ds)%n",
            job,
            Instant.ofEpochMilli(fromMs),
            Instant.ofEpochMilli(toMs),
            window,
            marginMs / 1000));
    sb.append(
        String.format(
            "  input      %,d records read from %d partitions, %,d in range%n",
            t.recordsRead(), input.size(), t.eventsInRange()));
    sb.append(
        String.format(
            "  results    %,d expected  %,d streamed  %,d match  %,d differ  %,d missing"
                + "  %,d unexpected%n",
            t.resultsExpected(),
            t.resultsStreamed(),
            t.resultsMatching(),
            t.resultsMismatched(),
            t.resultsMissing(),
            t.resultsUnexpected()));
    sb.append(
        String.format(
            "  events     %,d aggregated  %,d late  %,d DLQ  %,d unaccounted"
                + "  %,d double-accounted  %,d unexpected%n",
            t.eventsAggregated(),
            t.eventsLate(),
            t.eventsDlq(),
            t.eventsUnaccounted(),
            t.eventsDoubleAccounted(),
            t.eventsUnexpected()));
    if (t.distinctChecked() + t.quantilesChecked() + t.heavyHittersChecked() > 0) {
      sb.append(
          String.format(
              "  sketches   distinct %,d/%,d  quantiles %,d/%,d  heavy hitters %,d/%,d"
                  + " outside their bounds%n",
              t.distinctFlagged(),
              t.distinctChecked(),
              t.quantilesFlagged(),
              t.quantilesChecked(),
              t.heavyHittersFlagged(),
              t.heavyHittersChecked()));
    }
    if (t.recordIssues() > 0) {
      sb.append(
          String.format(
              "  records    %,d not in exactly one place (see below)%n", t.recordIssues()));
    }
    sb.append(
        String.format(
            "  memory     budget %s, %,d records sorted, %d runs spilled (%s), largest key %,d"
                + " results%n",
            bytes(memory.budgetBytes()),
            memory.sortedRecords(),
            memory.spillRuns(),
            bytes(memory.spilledBytes()),
            memory.peakKeyResults()));
    if (correctionsTopic != null) {
      sb.append(
          String.format(
              "  corrections %,d written to %s%n", t.correctionsWritten(), correctionsTopic));
    }
    int shown = 0;
    for (ResultDifference d : differences) {
      if (shown++ == 10) {
        sb.append(String.format("  … %d more in the report%n", differences.size() - 10));
        break;
      }
      sb.append("  ").append(describe(d)).append(System.lineSeparator());
    }
    for (SketchFlag s : sketchFlags.subList(0, Math.min(5, sketchFlags.size()))) {
      sb.append(
          String.format(
              "  sketch %s %s: estimate %s, exact %s, allowed %s%n",
              s.resultKey(), s.field(), s.estimate(), s.exact(), s.allowed()));
    }
    for (AccountingIssue a : accountingIssues.subList(0, Math.min(5, accountingIssues.size()))) {
      sb.append(
          String.format(
              "  record p%d@%d %s: %s%n",
              a.sourcePartition(),
              a.sourceOffset(),
              a.kind().name().toLowerCase(Locale.ROOT),
              a.detail()));
    }
    for (String w : warnings) {
      sb.append("  warning: ").append(w).append(System.lineSeparator());
    }
    sb.append(
        switch (exitCode()) {
          case ExitCode.MATCH ->
              "RESULT: MATCH — every result equals the exact recomputation and every event is"
                  + " accounted for (exit 0)";
          case ExitCode.SKETCHES_OUTSIDE_BOUNDS ->
              "RESULT: exact fields match; "
                  + sketchesFlagged()
                  + " sketch estimates outside their error bars (exit 3)";
          default -> "RESULT: DIFFERENCES (exit 1)";
        });
    sb.append(System.lineSeparator());
    return sb.toString();
  }

  private static String describe(ResultDifference d) {
    StringBuilder sb = new StringBuilder();
    sb.append(d.kind().name().toLowerCase(Locale.ROOT)).append(' ').append(d.resultKey());
    switch (d.kind()) {
      case MISSING -> sb.append(": expected ").append(d.expectedCount()).append(" events");
      case UNEXPECTED -> sb.append(": streamed ").append(d.streamedCount()).append(" events");
      default -> {
        sb.append(':');
        for (ResultDifference.FieldDifference f : d.fields()) {
          sb.append(' ')
              .append(f.field())
              .append(' ')
              .append(f.streamed())
              .append(" (expected ")
              .append(f.expected())
              .append(')');
        }
      }
    }
    if (d.sideEvents() > 0) {
      sb.append("; ").append(d.sideEvents()).append(" events of it in side topics");
    }
    if (d.note() != null) {
      sb.append("; ").append(d.note());
    }
    return sb.toString();
  }

  private static String bytes(long b) {
    if (b >= 1L << 30) {
      return String.format("%.1f GiB", b / (double) (1L << 30));
    }
    if (b >= 1L << 20) {
      return String.format("%.1f MiB", b / (double) (1L << 20));
    }
    if (b >= 1L << 10) {
      return String.format("%.1f KiB", b / (double) (1L << 10));
    }
    return b + " B";
  }
}

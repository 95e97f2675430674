package dev.skewer.reconcile.internal;

import dev.skewer.reconcile.AccountingIssue;
import dev.skewer.reconcile.ReconcileReport;
import dev.skewer.reconcile.ResultDifference;
import dev.skewer.reconcile.SketchFlag;
import java.util.ArrayList;
import java.util.List;

/** The mutable counts and capped lists of one reconciliation. Not thread-safe. */
public final class Tally {

  private final int maxListed;
  private boolean truncated;

  public final List<ResultDifference> differences = new ArrayList<>();
  public final List<SketchFlag> sketchFlags = new ArrayList<>();
  public final List<AccountingIssue> accountingIssues = new ArrayList<>();

  public long recordsRead;
  public long eventsInRange;
  public long eventsAggregated;
  public long eventsLate;
  public long eventsDlq;
  public long eventsUnaccounted;
  public long eventsDoubleAccounted;
  public long eventsUnexpected;
  public long resultsExpected;
  public long resultsStreamed;
  public long resultsMatching;
  public long resultsMismatched;
  public long resultsMissing;
  public long resultsUnexpected;
  public long resultsSuperseded;
  public long resultsUnreadable;
  public long distinctChecked;
  public long distinctFlagged;
  public long quantilesChecked;
  public long quantilesFlagged;
  public long heavyHittersChecked;
  public long heavyHittersFlagged;
  public long sideRecords;
  public long sideRecordsWithoutSource;
  public long correctionsWritten;
  public long accountingIssueCount;
  public long peakKeyResults;
  public long peakKeyEvents;

  public Tally(int maxListed) {
    this.maxListed = maxListed;
  }

  public void difference(ResultDifference d) {
    switch (d.kind()) {
      case MISMATCH -> resultsMismatched++;
      case MISSING -> resultsMissing++;
      case UNEXPECTED -> resultsUnexpected++;
      default -> throw new IllegalStateException("unknown kind " + d.kind());
    }
    add(differences, d);
  }

  public void sketchFlag(SketchFlag f) {
    add(sketchFlags, f);
  }

  public void issue(AccountingIssue.Kind kind, int partition, long offset, String detail) {
    accountingIssueCount++;
    add(accountingIssues, new AccountingIssue(kind, partition, offset, detail));
  }

  private <T> void add(List<T> list, T item) {
    if (list.size() < maxListed) {
      list.add(item);
    } else {
      truncated = true;
    }
  }

  public boolean truncated() {
    return truncated;
  }

  public ReconcileReport.Totals totals() {
    return new ReconcileReport.Totals(
        recordsRead,
        eventsInRange,
        eventsAggregated,
        eventsLate,
        eventsDlq,
        eventsUnaccounted,
        eventsDoubleAccounted,
        eventsUnexpected,
        resultsExpected,
        resultsStreamed,
        resultsMatching,
        resultsMismatched,
        resultsMissing,
        resultsUnexpected,
        resultsSuperseded,
        resultsUnreadable,
        distinctChecked,
        distinctFlagged,
        quantilesChecked,
        quantilesFlagged,
        heavyHittersChecked,
        heavyHittersFlagged,
        sideRecords,
        sideRecordsWithoutSource,
        correctionsWritten,
        accountingIssueCount);
  }
}

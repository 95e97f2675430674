package dev.skewer.model;

import dev.skewer.loadgen.reference.ShapeReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The contracts of docs/guarantees.md checked after a history, each violation named:
 *
 * <ul>
 *   <li><b>dlq</b>: every malformed, oversized or future-dated record is in the DLQ once, with its
 *       reason; nothing else is;
 *   <li><b>late</b>: the late topic holds exactly the events the reference (Flink-compatible
 *       lateness per result, with the frontier each partition adopted where it adopted it) judges
 *       late, each once;
 *   <li><b>results</b>: the last record of each result key equals the brute-force reference over
 *       the events that are neither late nor bad (count, sum, min, max, window or session bounds),
 *       and there is no other live result — so every input event is in exactly one of {a result,
 *       the late topic, the DLQ};
 *   <li><b>revisions</b>: per result key, revisions never go down, a (result key, revision) pair
 *       written twice has the same content, and a live result never reflects fewer events than the
 *       one before it;
 *   <li><b>determinism</b>: the last record of each live result key has the bytes (but for its
 *       revision number and provenance) of the failure-free run of the same input, when both
 *       adopted the frontier at the same offsets.
 * </ul>
 */
final class Contracts {

  private static final int MAX_REPORTED = 12;

  private final History history;
  private final List<String> violations = new ArrayList<>();

  private Contracts(History history) {
    this.history = history;
  }

  /** The violations of {@code run} (and against {@code baseline}, if given); empty if none. */
  static List<String> check(History history, Observed run, Observed baseline) {
    Contracts c = new Contracts(history);
    c.checkAll(run, baseline);
    return c.violations;
  }

  private void violation(String contract, String what) {
    if (violations.size() < MAX_REPORTED) {
      violations.add(contract + ": " + what);
    } else if (violations.size() == MAX_REPORTED) {
      violations.add("... (more)");
    }
  }

  private record Source(int partition, long offset) {}

  private void checkAll(Observed run, Observed baseline) {
    // the input with its offsets, and the reference's verdicts
    ShapeReference reference = history.job().reference();
    Map<Source, InputEvent> bad = new HashMap<>();
    Map<Source, InputEvent> late = new HashMap<>();
    Map<Integer, Long> nextOffset = new HashMap<>();
    for (Step step : history.steps()) {
      if (!(step instanceof Step.Append a)) {
        continue;
      }
      for (InputEvent e : a.events()) {
        long offset = nextOffset.merge(e.partition(), 1L, Long::sum) - 1;
        Source s = new Source(e.partition(), offset);
        // the frontier this partition had adopted before this event (an idle partition adopts
        // the coordinators' frontier at a checkpoint)
        Map<Long, Long> adopted = run.adoptions().getOrDefault(e.partition(), Map.of());
        for (Map.Entry<Long, Long> f : adopted.entrySet()) {
          if (f.getKey() <= offset) {
            reference.adoptFrontier(e.partition(), f.getValue());
          }
        }
        if (!e.wellFormed()) {
          bad.put(s, e);
        } else if (!reference.accept(e.partition(), e.key(), e.timeMs(), e.value())) {
          late.put(s, e);
        }
      }
    }
    checkDlq(run, bad, late);
    checkLate(run, late);
    checkResults(run, reference.results());
    checkRevisions(run);
    if (baseline != null && run.adoptions().equals(baseline.adoptions())) {
      // (when the partitions adopted the frontier at other points, e.g. a rewound partition was not
      // idle when the other run's was, the two runs judged by other watermarks: both are right)
      checkDeterminism(run, baseline);
    }
  }

  private void checkDlq(Observed run, Map<Source, InputEvent> bad, Map<Source, InputEvent> late) {
    Map<Source, Integer> seen = new HashMap<>();
    for (Observed.Side d : run.dlq()) {
      Source s = new Source(d.partition(), d.offset());
      if (seen.merge(s, 1, Integer::sum) == 2) {
        violation("dlq", "offset " + s + " written to the DLQ more than once");
      }
      InputEvent e = bad.get(s);
      if (e == null) {
        violation(
            "dlq",
            "offset "
                + s
                + " in the DLQ (reason "
                + d.reason()
                + ") is a well-formed event"
                + (late.containsKey(s) ? " (late)" : ""));
      } else if (!e.dlqReason().equals(d.reason())) {
        violation("dlq", e + " in the DLQ with reason " + d.reason());
      }
    }
    for (Map.Entry<Source, InputEvent> e : bad.entrySet()) {
      if (!seen.containsKey(e.getKey())) {
        violation("dlq", e.getValue() + " at " + e.getKey() + " is not in the DLQ");
      }
    }
  }

  private void checkLate(Observed run, Map<Source, InputEvent> late) {
    Map<Source, Integer> seen = new HashMap<>();
    for (Observed.Side l : run.late()) {
      Source s = new Source(l.partition(), l.offset());
      if (seen.merge(s, 1, Integer::sum) == 2) {
        violation("late", "offset " + s + " written to the late topic more than once");
      }
      if (!late.containsKey(s)) {
        violation("late", "offset " + s + " is in the late topic but the reference accepts it");
      }
    }
    for (Map.Entry<Source, InputEvent> e : late.entrySet()) {
      if (!seen.containsKey(e.getKey())) {
        violation(
            "late", e.getValue() + " at " + e.getKey() + " is late but not in the late topic");
      }
    }
  }

  private void checkResults(Observed run, Map<String, ShapeReference.Result> expected) {
    boolean sessions = history.job().shape() == ModelJob.Shape.SESSION;
    Map<String, Observed.Result> live = run.live();
    Set<String> missing = new TreeSet<>(expected.keySet());
    missing.removeAll(live.keySet());
    for (String k : missing) {
      violation("results", "missing result " + k + " expected " + expected.get(k));
    }
    for (Map.Entry<String, Observed.Result> e : live.entrySet()) {
      ShapeReference.Result want = expected.get(e.getKey());
      Observed.Result got = e.getValue();
      if (want == null) {
        violation("results", "unexpected result " + got.json());
        continue;
      }
      long start = got.value().path(sessions ? "session_start_ms" : "window_start_ms").asLong();
      long end = got.value().path(sessions ? "session_end_ms" : "window_end_ms").asLong();
      boolean same =
          start == want.startMs()
              && end == want.endMs()
              && got.count() == want.count()
              && got.value().path("sum_value").asDouble() == want.sum()
              && got.value().path("min_value").asDouble() == want.min()
              && got.value().path("max_value").asDouble() == want.max();
      if (!same) {
        violation("results", got.json() + " but the reference has " + want);
      }
    }
  }

  private void checkRevisions(Observed run) {
    for (Map.Entry<String, List<Observed.Result>> e : run.results().entrySet()) {
      List<Observed.Result> records = e.getValue();
      Map<Integer, String> contentByRevision = new HashMap<>();
      Observed.Result lastLive = null;
      for (int i = 0; i < records.size(); i++) {
        Observed.Result r = records.get(i);
        if (r.revision() < 0) {
          violation("revisions", "no revision in " + r.json());
        }
        if (i > 0 && r.revision() < records.get(i - 1).revision()) {
          violation(
              "revisions",
              e.getKey()
                  + " went from revision "
                  + records.get(i - 1).revision()
                  + " back to "
                  + r.revision()
                  + ": "
                  + revisions(records));
        }
        String before = contentByRevision.putIfAbsent(r.revision(), r.content());
        if (before != null && !before.equals(r.content())) {
          violation(
              "revisions",
              e.getKey()
                  + " revision "
                  + r.revision()
                  + " written twice with different content: "
                  + before
                  + " then "
                  + r.json());
        }
        if (!r.superseded()) {
          if (lastLive != null && r.count() < lastLive.count()) {
            violation(
                "revisions",
                e.getKey()
                    + " went from "
                    + lastLive.count()
                    + " events back to "
                    + r.count()
                    + ": "
                    + revisions(records));
          }
          lastLive = r;
        }
      }
    }
  }

  private static String revisions(List<Observed.Result> records) {
    List<String> out = new ArrayList<>();
    for (Observed.Result r : records) {
      out.add("r" + r.revision() + (r.superseded() ? "(superseded)" : "") + "=" + r.count());
    }
    return out.toString();
  }

  private void checkDeterminism(Observed run, Observed baseline) {
    // live results only: whether a session was written before a late event merged it into
    // another (and then superseded) depends on when its close came, not on its events
    Map<String, Observed.Result> a = run.live();
    Map<String, Observed.Result> b = baseline.live();
    Set<String> keys = new TreeSet<>(a.keySet());
    keys.addAll(b.keySet());
    for (String k : keys) {
      Observed.Result x = a.get(k);
      Observed.Result y = b.get(k);
      if (x == null || y == null) {
        violation(
            "determinism",
            k
                + (x == null ? " missing from this run" : " missing from the failure-free run")
                + " ("
                + (x == null ? y.json() : x.json())
                + ")");
      } else if (!Objects.equals(x.content(), y.content())) {
        violation(
            "determinism",
            k + " is " + x.json() + " here but " + y.json() + " in the failure-free run");
      }
    }
  }
}

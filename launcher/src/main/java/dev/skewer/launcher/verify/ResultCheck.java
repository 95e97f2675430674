package dev.skewer.launcher.verify;

import dev.skewer.loadgen.reference.ExactReference;
import dev.skewer.loadgen.reference.ExactWindow;
import dev.skewer.loadgen.reference.WindowKey;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Compares the results topic with an {@link ExactReference}: for every (key, window) the last
 * revision's count, sum, min, max and distinct estimate; exactly one revision 0 per (key, window);
 * revisions only where the input had late-but-allowed events.
 */
public final class ResultCheck {

  /** The outcome; {@link #ok()} when nothing is wrong. */
  public record Report(
      int expectedWindows,
      int resultWindows,
      long resultRecords,
      long revisions,
      long expectedCount,
      long resultCount,
      List<String> problems) {

    public boolean ok() {
      return problems.isEmpty();
    }

    /** One line for humans. */
    public String summary() {
      return String.format(
          "%d/%d (key, window) results, %d events counted of %d expected, %d revisions: %s",
          resultWindows,
          expectedWindows,
          resultCount,
          expectedCount,
          revisions,
          ok() ? "all exact" : problems.size() + " problems, first: " + problems.get(0));
    }
  }

  private ResultCheck() {}

  /**
   * Checks.
   *
   * @param records the results topic, in offset order per partition
   * @param checkSketches also compare distinct estimates (needs the reference's aggregates)
   */
  public static Report check(
      ExactReference reference,
      List<ConsumerRecord<byte[], byte[]>> records,
      String keyField,
      String numericField,
      boolean checkSketches) {
    Map<String, ResultRecord> last = new HashMap<>();
    Map<String, Integer> finals = new HashMap<>();
    List<String> problems = new ArrayList<>();
    long revisions = 0;
    for (ConsumerRecord<byte[], byte[]> r : records) {
      String resultKey = new String(r.key(), StandardCharsets.UTF_8);
      ResultRecord rr = ResultRecord.parse(resultKey, r.value(), keyField, numericField);
      if (rr.revision() == 0) {
        finals.merge(resultKey, 1, Integer::sum);
      } else {
        revisions++;
      }
      ResultRecord held = last.get(resultKey);
      if (held == null || rr.revision() > held.revision()) {
        last.put(resultKey, rr);
      }
    }
    Map<WindowKey, ExactWindow> expected = reference.windows();
    long resultCount = 0;
    for (ResultRecord rr : last.values()) {
      resultCount += rr.count();
    }
    for (Map.Entry<WindowKey, ExactWindow> e : expected.entrySet()) {
      ExactWindow w = e.getValue();
      String resultKey = w.key() + "@" + w.windowStartMs();
      ResultRecord rr = last.get(resultKey);
      if (rr == null) {
        problems.add("missing result " + resultKey + " (expected count " + w.count() + ")");
        continue;
      }
      int f = finals.getOrDefault(resultKey, 0);
      if (f != 1) {
        problems.add(resultKey + ": " + f + " final results (revision 0), expected exactly 1");
      }
      if (rr.revision() > 0 && !w.revisionExpected()) {
        problems.add(resultKey + ": revision " + rr.revision() + " without late input");
      }
      if (rr.count() != w.count()) {
        problems.add(resultKey + ": count " + rr.count() + ", expected " + w.count());
      }
      if (!close(rr.sum(), w.sum())) {
        problems.add(resultKey + ": sum " + rr.sum() + ", expected " + w.sum());
      }
      if (rr.min() != w.min() || rr.max() != w.max()) {
        problems.add(
            resultKey
                + ": min/max "
                + rr.min()
                + "/"
                + rr.max()
                + ", expected "
                + w.min()
                + "/"
                + w.max());
      }
      if (rr.sourcePartitions() != null) {
        // provenance: exactly the source partitions whose events the window holds
        if (!rr.sourcePartitions().equals(w.sourcePartitions())) {
          problems.add(
              resultKey
                  + ": provenance sources "
                  + rr.sourcePartitions()
                  + ", expected "
                  + w.sourcePartitions());
        }
        if (rr.partitionsExpected() != reference.partitions()) {
          problems.add(
              resultKey
                  + ": provenance partitions_expected "
                  + rr.partitionsExpected()
                  + ", expected "
                  + reference.partitions());
        }
      }
      if (checkSketches && rr.distinctEstimate() >= 0) {
        long exp = w.aggregate().distinct().estimate();
        if (rr.distinctEstimate() != exp) {
          problems.add(resultKey + ": distinct " + rr.distinctEstimate() + ", single-HLL " + exp);
        }
      }
    }
    for (String resultKey : last.keySet()) {
      ResultRecord rr = last.get(resultKey);
      if (!expected.containsKey(new WindowKey(rr.key(), rr.windowStartMs()))) {
        problems.add("unexpected result " + resultKey + " count " + rr.count());
      }
    }
    return new Report(
        expected.size(),
        last.size(),
        records.size(),
        revisions,
        reference.totalCount(),
        resultCount,
        problems);
  }

  /** Sums are added in different orders: equal up to floating-point reassociation. */
  private static boolean close(double a, double b) {
    return Math.abs(a - b) <= 1e-9 * Math.max(1.0, Math.max(Math.abs(a), Math.abs(b)));
  }
}

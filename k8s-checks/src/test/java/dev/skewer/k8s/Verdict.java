package dev.skewer.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skewer.crossprocess.EndOfInput;
import dev.skewer.crossprocess.SideOutput;
import dev.skewer.launcher.verify.ResultCheck;
import dev.skewer.launcher.verify.ResultRecord;
import dev.skewer.loadgen.reference.ExactReference;
import dev.skewer.testkit.kafka.TopicReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The cluster tests' verdict, from the project's own checks: {@link ResultCheck} against the
 * brute-force {@link ExactReference} (every (key, window) exact, one final result each, revisions
 * only where late input allows them, the total count), every (result key, revision) written once,
 * and {@link SideOutput} for the late topic and the DLQ (exactly the reference's events, distinct
 * by source position).
 *
 * @param results the result check
 * @param duplicates (result key, revision) pairs written more than once, with how often (at most 5
 *     shown) — a result emitted twice, e.g. by a zombie
 * @param duplicateCount how many (result key, revision) pairs were written more than once
 * @param late the late topic against the reference's late events
 * @param dlq the DLQ against the reference's malformed and future events
 */
record Verdict(
    ResultCheck.Report results,
    Map<String, Integer> duplicates,
    int duplicateCount,
    SideOutput late,
    SideOutput dlq) {

  /** The longest the results may take to become exact after the load ended. */
  static final Duration RESULTS_TIMEOUT = Duration.ofSeconds(150);

  /** Give up earlier once the results topic has not grown for this long. */
  static final Duration RESULTS_QUIET = Duration.ofSeconds(25);

  boolean ok() {
    return results.ok() && duplicateCount == 0 && late.ok() && dlq.ok();
  }

  String summary() {
    return results.summary()
        + " | "
        + duplicateCount
        + " (key, revision) written twice"
        + (duplicates.isEmpty() ? "" : " " + duplicates)
        + " | "
        + late.summary()
        + " | "
        + dlq.summary();
  }

  /**
   * Nothing lost, nothing doubled: the results exact, their total count the reference's, no (result
   * key, revision) twice, the late topic and the DLQ exactly the reference's events.
   */
  void assertExact(ExactReference reference) {
    assertThat(results.problems()).as(summary()).isEmpty();
    assertThat(results.resultCount()).as(summary()).isEqualTo(reference.totalCount());
    assertThat(duplicates).as("(result key, revision) written more than once").isEmpty();
    assertThat(late.ok()).as(late.summary()).isTrue();
    assertThat(dlq.ok()).as(dlq.summary()).isTrue();
  }

  /** (result key, revision) → how often, for the pairs seen more than once. */
  static Map<String, Integer> duplicates(List<ConsumerRecord<byte[], byte[]>> records) {
    Map<String, Integer> seen = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : records) {
      String key = new String(r.key(), StandardCharsets.UTF_8);
      ResultRecord rr = ResultRecord.parse(key, r.value(), "key", "value");
      seen.merge(key + "#" + rr.revision(), 1, Integer::sum);
    }
    Map<String, Integer> twice = new TreeMap<>();
    seen.forEach(
        (k, n) -> {
          if (n > 1) {
            twice.put(k, n);
          }
        });
    return twice;
  }

  /**
   * Waits until the results are exact (or stopped changing), then compares the side outputs. The
   * results of {@link EndOfInput}'s markers are left out.
   *
   * @param results, late, dlq the topics
   */
  static Verdict of(
      String bootstrap, ExactReference reference, String results, String late, String dlq) {
    ResultCheck.Report[] last = new ResultCheck.Report[1];
    List<ConsumerRecord<byte[], byte[]>> lastRecords = new ArrayList<>();
    long[] lastSize = {-1};
    long[] lastChange = {System.nanoTime()};
    await()
        .atMost(RESULTS_TIMEOUT)
        .pollInterval(Duration.ofSeconds(3))
        .ignoreExceptions()
        .until(
            () -> {
              List<ConsumerRecord<byte[], byte[]>> records =
                  EndOfInput.withoutMarkers(
                      TopicReader.readAll(bootstrap, results, Duration.ofSeconds(20)));
              last[0] = ResultCheck.check(reference, records, "key", "value", true);
              lastRecords.clear();
              lastRecords.addAll(records);
              if (records.size() != lastSize[0]) {
                lastSize[0] = records.size();
                lastChange[0] = System.nanoTime();
              }
              return last[0].ok() || System.nanoTime() - lastChange[0] > RESULTS_QUIET.toNanos();
            });
    Map<String, Integer> twice = duplicates(lastRecords);
    Map<String, Integer> shown = new TreeMap<>();
    twice.entrySet().stream().limit(5).forEach(e -> shown.put(e.getKey(), e.getValue()));
    return new Verdict(
        last[0],
        shown,
        twice.size(),
        side(bootstrap, late, reference.late()),
        side(bootstrap, dlq, reference.dlq()));
  }

  private static SideOutput side(
      String bootstrap, String topic, List<dev.skewer.loadgen.workload.GeneratedEvent> expected) {
    SideOutput[] last = new SideOutput[1];
    long started = System.nanoTime();
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofSeconds(2))
        .ignoreExceptions()
        .until(
            () -> {
              last[0] =
                  SideOutput.compare(
                      topic,
                      TopicReader.readAll(bootstrap, topic, Duration.ofSeconds(20)),
                      expected);
              return last[0].ok() || System.nanoTime() - started > Duration.ofSeconds(15).toNanos();
            });
    return last[0];
  }
}

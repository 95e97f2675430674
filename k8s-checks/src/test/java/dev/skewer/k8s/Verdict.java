package dev.skewer.k8s;

import static org.awaitility.Awaitility.await;

import dev.skewer.crossprocess.SideOutput;
import dev.skewer.launcher.verify.ResultCheck;
import dev.skewer.loadgen.reference.ExactReference;
import dev.skewer.testkit.kafka.TopicReader;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The cluster tests' verdict, from the project's own checks: {@link ResultCheck} against the
 * brute-force {@link ExactReference} (every (key, window) exact, one final result each, revisions
 * only where late input allows them, the total count) and {@link SideOutput} for the late topic and
 * the DLQ (exactly the reference's events, distinct by source position).
 *
 * @param results the result check
 * @param late the late topic against the reference's late events
 * @param dlq the DLQ against the reference's malformed and future events
 */
record Verdict(ResultCheck.Report results, SideOutput late, SideOutput dlq) {

  /** The longest the results may take to become exact after the load ended. */
  static final Duration RESULTS_TIMEOUT = Duration.ofSeconds(150);

  /** Give up earlier once the results topic has not grown for this long. */
  static final Duration RESULTS_QUIET = Duration.ofSeconds(25);

  boolean ok() {
    return results.ok() && late.ok() && dlq.ok();
  }

  String summary() {
    return results.summary() + " | " + late.summary() + " | " + dlq.summary();
  }

  /**
   * Waits until the results are exact (or stopped changing), then compares the side outputs.
   *
   * @param results, late, dlq the topics
   */
  static Verdict of(
      String bootstrap, ExactReference reference, String results, String late, String dlq) {
    ResultCheck.Report[] last = new ResultCheck.Report[1];
    long[] lastSize = {-1};
    long[] lastChange = {System.nanoTime()};
    await()
        .atMost(RESULTS_TIMEOUT)
        .pollInterval(Duration.ofSeconds(3))
        .ignoreExceptions()
        .until(
            () -> {
              List<ConsumerRecord<byte[], byte[]>> records =
                  TopicReader.readAll(bootstrap, results, Duration.ofSeconds(20));
              last[0] = ResultCheck.check(reference, records, "key", "value", true);
              if (records.size() != lastSize[0]) {
                lastSize[0] = records.size();
                lastChange[0] = System.nanoTime();
              }
              return last[0].ok() || System.nanoTime() - lastChange[0] > RESULTS_QUIET.toNanos();
            });
    return new Verdict(
        last[0], side(bootstrap, late, reference.late()), side(bootstrap, dlq, reference.dlq()));
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

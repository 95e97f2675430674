package dev.skewer.crossprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skewer.core.job.Guarantee;
import dev.skewer.launcher.verify.ResultCheck;
import dev.skewer.launcher.verify.ResultRecord;
import dev.skewer.loadgen.produce.LoadSummary;
import dev.skewer.loadgen.reference.ExactReference;
import dev.skewer.loadgen.workload.GeneratedEvent;
import dev.skewer.loadgen.workload.WorkloadSpec;
import dev.skewer.testkit.kafka.TopicReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What every cross-process scenario shares: a cluster on the shared broker (or its own), the
 * 300,000-event workload with disorder, a hot key, late, malformed and future-dated events, the
 * paced producer feeding an {@link ExactReference}, and the final verdict — results exact per (key,
 * window) with sketches, the late topic and the DLQ exactly the reference's; for an {@code
 * exactly_once} job also no record written twice (no repeated (result key, revision), no duplicate
 * side output).
 *
 * <p>The cluster is closed after each test, whatever happened; the children's logs stay in its work
 * dir under {@code target/crossprocess} (after a failure, with a thread dump of each process). Each
 * verdict is also appended to {@code target/crossprocess/verdicts.txt}.
 */
abstract class CrossProcessScenario {

  static final long EVENTS = 300_000;
  static final Duration LOAD_TIMEOUT = Duration.ofMinutes(3);

  /** The longest a verdict waits for the results to become exact. */
  static final Duration RESULTS_TIMEOUT = Duration.ofSeconds(150);

  /**
   * Give up earlier when the results topic has not grown for this long after the load ended (the
   * last windows close at once after the {@link EndOfInput} markers, or {@link
   * ClusterUnderTest#SCENARIO_IDLE} after the load in a scenario that {@link #endsBySilence}).
   */
  static final Duration RESULTS_QUIET = ClusterUnderTest.SCENARIO_IDLE.plusSeconds(20);

  private static final ObjectMapper JSON = new ObjectMapper();

  protected ClusterUnderTest cluster;
  private String finalsAudit = "";
  private List<ConsumerRecord<byte[], byte[]>> lastResults;

  /**
   * When a scenario fails, every process still running writes its threads' stacks to its log before
   * the cluster is closed: a take-over or a write that hangs shows where.
   */
  @RegisterExtension
  final AfterTestExecutionCallback threadDumpsOnFailure =
      context -> {
        if (context.getExecutionException().isPresent() && cluster != null) {
          cluster.dumpThreads();
        }
      };

  @AfterEach
  void closeCluster() {
    if (cluster != null) {
      cluster.close();
      cluster = null;
    }
  }

  /** A cluster builder on the shared broker. */
  static ClusterUnderTest.Builder clusterNamed(String name) {
    return ClusterUnderTest.builder(name).broker(SharedBroker.get());
  }

  /**
   * {@value #EVENTS} W1 events over 2,000 keys (30% on the hot key {@code ad0}) and 20,000 users,
   * 2,000 per simulated second ending 50 s ago, disordered by up to 3.5 s (beyond the 2 s delay, so
   * some are late but within lateness), 0.2% late by 25 s (to the late topic), 0.1% malformed and
   * 0.05% future-dated (to the DLQ).
   */
  static WorkloadSpec workload(String name, long seed) {
    return WorkloadSpec.w1(EVENTS, seed)
        .withName(name)
        .withKeys(2_000)
        .withUsers(20_000)
        .withHotKeyShare(0.3)
        .withTime(System.currentTimeMillis() - 200_000, 2_000)
        .withDisorder(Duration.ofMillis(3_500))
        .withLate(0.002, Duration.ofSeconds(25))
        .withMalformed(0.001)
        .withFuture(0.0005);
  }

  /** A reference for the cluster's job. */
  ExactReference reference() {
    return ExactReference.of(
        Duration.ofSeconds(10),
        Duration.ofSeconds(2),
        Duration.ofSeconds(5),
        cluster.job().topics().eventsPartitions(),
        cluster.job().toSketchSpec());
  }

  /** Starts producing {@code spec} to the cluster's events topic at {@code rate} events/s. */
  LoadRun produce(WorkloadSpec spec, ExactReference reference, double rate) {
    return LoadRun.start(cluster.bootstrap(), cluster.job(), spec, reference, rate);
  }

  /**
   * Waits for the load to end, then for the results, and asserts the verdict: the workload
   * exercised every path, the results are exact, the late topic and the DLQ hold exactly the
   * reference's events (distinct by source position).
   */
  void assertExact(String scenario, LoadRun load, ExactReference reference) {
    LoadSummary sent = load.awaitEnd(LOAD_TIMEOUT);
    assertThat(sent.sent()).as("events sent").isEqualTo(EVENTS);
    assertThat(sent.failed()).as("events the broker did not acknowledge").isZero();
    assertThat(reference.late()).as("the workload must exercise the late path").isNotEmpty();
    assertThat(reference.dlq()).as("the workload must exercise the DLQ").isNotEmpty();
    assertThat(reference.windows().values().stream().anyMatch(w -> w.revisionExpected()))
        .as("the workload must exercise revisions within lateness")
        .isTrue();

    if (!endsBySilence()) {
      EndOfInput.send(
          cluster.bootstrap(),
          cluster.job().topics().events(),
          cluster.job().topics().eventsPartitions());
    }
    ResultCheck.Report report = awaitResults(reference);
    SideOutput late = awaitSideOutput(cluster.job().topics().late(), reference.late());
    SideOutput dlq = awaitSideOutput(cluster.job().topics().dlq(), reference.dlq());
    boolean exactlyOnce = cluster.job().guarantee() == Guarantee.EXACTLY_ONCE;
    List<String> repeated = exactlyOnce ? repeatedResults(lastResults) : List.of();
    String verdict =
        String.format(
            "%s %s%s: %s%s | %s | %s | logs %s",
            Instant.now(),
            scenario,
            exactlyOnce ? " (exactly_once)" : "",
            report.summary(),
            categories(report.problems())
                + finalsAudit
                + (repeated.isEmpty()
                    ? ""
                    : " (repeated (key, revision)s: " + repeated.size() + ")"),
            late.summary(),
            dlq.summary(),
            cluster.workDir().toAbsolutePath());
    writeProblems(report.problems());
    System.err.println(verdict);
    record(verdict);

    SoftAssertions softly = new SoftAssertions();
    softly
        .assertThat(report.problems().subList(0, Math.min(20, report.problems().size())))
        .as("result problems (%d in all, first 20 shown)", report.problems().size())
        .isEmpty();
    softly.assertThat(report.resultCount()).as("events counted").isEqualTo(reference.totalCount());
    softly.assertThat(late.ok()).as(late.summary()).isTrue();
    softly.assertThat(dlq.ok()).as(dlq.summary()).isTrue();
    if (exactlyOnce) {
      softly
          .assertThat(repeated.subList(0, Math.min(20, repeated.size())))
          .as("(result key, revision)s written more than once (%d in all)", repeated.size())
          .isEmpty();
      softly.assertThat(late.duplicates()).as("late records written twice").isZero();
      softly.assertThat(dlq.duplicates()).as("DLQ records written twice").isZero();
    }
    softly.assertAll();
  }

  /**
   * Whether the scenario's input ends by silence — its last windows closed by the job's {@code
   * finalizeAfterIdle}, {@link ClusterUnderTest#SCENARIO_IDLE} after the load — rather than by the
   * {@link EndOfInput} markers, which close them at once. False but in the baseline, which keeps
   * end of input by idleness covered across processes.
   */
  protected boolean endsBySilence() {
    return false;
  }

  /** The (result key, revision) pairs that occur more than once among {@code results}. */
  static List<String> repeatedResults(List<ConsumerRecord<byte[], byte[]>> results) {
    if (results == null) {
      return List.of();
    }
    Map<String, Integer> seen = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : results) {
      String key = new String(r.key(), StandardCharsets.UTF_8);
      int revision = ResultRecord.parse(key, r.value(), "key", "value").revision();
      seen.merge(key + " revision " + revision, 1, Integer::sum);
    }
    List<String> out = new ArrayList<>();
    seen.forEach(
        (pair, n) -> {
          if (n > 1) {
            out.add(pair + " x" + n);
          }
        });
    return out;
  }

  private ResultCheck.Report awaitResults(ExactReference reference) {
    String topic = cluster.job().topics().results();
    ResultCheck.Report[] last = new ResultCheck.Report[1];
    AtomicReference<List<ConsumerRecord<byte[], byte[]>>> lastResults = new AtomicReference<>();
    long[] lastRecords = {-1};
    long[] lastChangeNs = {System.nanoTime()};
    await()
        .atMost(RESULTS_TIMEOUT)
        .pollInterval(Duration.ofSeconds(3))
        .ignoreExceptions()
        .until(
            () -> {
              List<ConsumerRecord<byte[], byte[]>> results =
                  EndOfInput.withoutMarkers(
                      TopicReader.readAll(cluster.bootstrap(), topic, Duration.ofSeconds(20)));
              last[0] = ResultCheck.check(reference, results, "key", "value", true);
              lastResults.set(results);
              if (results.size() != lastRecords[0]) {
                lastRecords[0] = results.size();
                lastChangeNs[0] = System.nanoTime();
              }
              return last[0].ok() || System.nanoTime() - lastChangeNs[0] > RESULTS_QUIET.toNanos();
            });
    finalsAudit = duplicateFinals(lastResults.get());
    this.lastResults = lastResults.get();
    return last[0];
  }

  /**
   * For the (key, window)s with more than one revision-0 result: how many, and how many of those
   * repeat the same result (byte for byte apart from its provenance, which names who wrote it:
   * harmless to an upsert consumer) rather than differ.
   */
  static String duplicateFinals(List<ConsumerRecord<byte[], byte[]>> results) {
    if (results == null) {
      return "";
    }
    Map<String, List<String>> finals = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : results) {
      String key = new String(r.key(), StandardCharsets.UTF_8);
      if (ResultRecord.parse(key, r.value(), "key", "value").revision() == 0) {
        finals.computeIfAbsent(key, k -> new ArrayList<>()).add(withoutProvenance(r.value()));
      }
    }
    long repeated = 0;
    long identical = 0;
    for (List<String> values : finals.values()) {
      if (values.size() > 1) {
        repeated++;
        if (new HashSet<>(values).size() == 1) {
          identical++;
        }
      }
    }
    return repeated == 0
        ? ""
        : String.format(
            " (repeated finals: %d (key, window)s, %d of them byte-identical)",
            repeated, identical);
  }

  private static String withoutProvenance(byte[] value) {
    try {
      JsonNode json = JSON.readTree(value);
      if (json instanceof ObjectNode o) {
        o.remove("provenance");
      }
      return json.toString();
    } catch (IOException e) {
      return new String(value, StandardCharsets.UTF_8);
    }
  }

  private SideOutput awaitSideOutput(String topic, List<GeneratedEvent> expected) {
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
                      TopicReader.readAll(cluster.bootstrap(), topic, Duration.ofSeconds(20)),
                      expected);
              return last[0].ok() || System.nanoTime() - started > Duration.ofSeconds(15).toNanos();
            });
    return last[0];
  }

  /**
   * The problems by kind, e.g. {@code [missing 4200, count 300, finals 0, ...]}; empty when there
   * are none.
   */
  static String categories(List<String> problems) {
    if (problems.isEmpty()) {
      return "";
    }
    Map<String, Integer> byKind = new LinkedHashMap<>();
    for (String kind :
        List.of(
            "missing", "unexpected", "finals", "revision", "count", "sum", "min/max", "distinct")) {
      byKind.put(kind, 0);
    }
    for (String p : problems) {
      String kind =
          p.startsWith("missing result")
              ? "missing"
              : p.startsWith("unexpected result")
                  ? "unexpected"
                  : p.contains("final results (revision 0)")
                      ? "finals"
                      : p.contains("without late input")
                          ? "revision"
                          : p.contains(": count ")
                              ? "count"
                              : p.contains(": sum ")
                                  ? "sum"
                                  : p.contains(": min/max ")
                                      ? "min/max"
                                      : p.contains(": distinct ") ? "distinct" : "other";
      byKind.merge(kind, 1, Integer::sum);
    }
    byKind.values().removeIf(n -> n == 0);
    return " " + byKind;
  }

  private void writeProblems(List<String> problems) {
    try {
      Files.write(cluster.workDir().resolve("problems.txt"), problems, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void record(String verdict) {
    try {
      Files.createDirectories(ClusterUnderTest.ROOT);
      Files.writeString(
          ClusterUnderTest.ROOT.resolve("verdicts.txt"),
          verdict + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

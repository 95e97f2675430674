package dev.skewer.coordinator.query;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import dev.skewer.core.result.ResultFormatter;
import dev.skewer.sketches.Aggregate;
import java.util.Map;
import java.util.Random;

/** A job with every metric, and result envelopes written by the real {@link ResultFormatter}. */
public final class QueryFixtures {

  public static final String JOB_YAML =
      """
      name: q
      input:
        keyPointer: /key
        timePointer: /ts
        numericFields:
          - name: value
            pointer: /value
          - name: bytes
            pointer: /bytes
        distinctPointer: /user
        quantilePointer: /value
        frequencyPointer: /page
      window:
        type: tumbling
        size: 10s
      watermark:
        delay: 1s
      allowedLateness: 5s
      output:
        quantiles: [0.5, 0.99]
        heavyHitters: 3
      topics:
        partialsPartitions: 2
      """;

  private QueryFixtures() {}

  public static JobSpec job() {
    return JobSpecLoader.parse(JOB_YAML, Map.of());
  }

  /**
   * The envelope of {@code key}'s result in {@code [startMs, startMs + 10 s)} with {@code count}
   * events of value {@code value} each, {@code users} distinct users.
   */
  public static byte[] envelope(
      JobSpec job, String key, long startMs, int count, double value, int users, int revision) {
    Aggregate a = Aggregate.empty(job.toSketchSpec());
    for (int i = 0; i < count; i++) {
      a.update(new double[] {value, 1.0}, "u" + (i % Math.max(1, users)), "page" + (i % 4), value);
    }
    return new ResultFormatter(job).format(key, startMs, startMs + 10_000, a, revision, null);
  }

  public static StoredResult result(
      JobSpec job, String key, long startMs, int count, double value, int users, int revision) {
    return new ResultParser(job).parse(envelope(job, key, startMs, count, value, users, revision));
  }

  /**
   * A random aggregate of the job's shape: none to 300 events, a fifth of the numeric values
   * missing, now and then a sum that overflows (written as null).
   */
  public static Aggregate randomAggregate(JobSpec job, Random random) {
    int numeric = job.toSketchSpec().numericFields();
    Aggregate a = Aggregate.empty(job.toSketchSpec());
    int n = random.nextInt(3) == 0 ? 0 : 1 + random.nextInt(300);
    for (int e = 0; e < n; e++) {
      double[] values = new double[numeric];
      for (int f = 0; f < numeric; f++) {
        values[f] = random.nextInt(5) == 0 ? Double.NaN : random.nextGaussian() * 1e3;
      }
      a.update(
          values,
          "u" + random.nextInt(50),
          "p" + random.nextInt(7),
          numeric > 0 ? values[0] : random.nextDouble());
    }
    if (random.nextInt(20) == 0 && numeric > 0) {
      double[] huge = new double[numeric];
      huge[0] = Double.MAX_VALUE; // twice: the sum overflows and is written as null
      a.update(huge, null, null, Double.NaN);
      a.update(huge, null, null, Double.NaN);
    }
    return a;
  }

  /** Asserts that two results say the same, field by field (their envelopes' bytes too). */
  public static void assertSameResult(StoredResult actual, StoredResult expected) {
    assertThat(actual.key()).isEqualTo(expected.key());
    assertThat(actual.windowStartMs()).isEqualTo(expected.windowStartMs());
    assertThat(actual.windowEndMs()).isEqualTo(expected.windowEndMs());
    assertThat(actual.revision()).isEqualTo(expected.revision());
    assertThat(actual.count()).isEqualTo(expected.count());
    assertThat(actual.sums()).containsExactly(expected.sums());
    assertThat(Double.valueOf(actual.distinct())).isEqualTo(Double.valueOf(expected.distinct()));
    assertThat(actual.superseded()).isEqualTo(expected.superseded());
    assertThat(actual.provenanceText()).isEqualTo(expected.provenanceText());
    assertThat(actual.provenanceFrom()).isEqualTo(expected.provenanceFrom());
    assertThat(actual.provenanceTo()).isEqualTo(expected.provenanceTo());
    assertThat(actual.envelope()).isEqualTo(expected.envelope());
    assertThat(actual.estimatedBytes()).isEqualTo(expected.estimatedBytes());
  }
}

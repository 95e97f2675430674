package dev.skewer.coordinator.query;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import dev.skewer.core.result.ResultFormatter;
import dev.skewer.sketches.Aggregate;
import java.util.Map;

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
}

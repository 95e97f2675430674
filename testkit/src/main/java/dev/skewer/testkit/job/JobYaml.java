package dev.skewer.testkit.job;

import dev.skewer.core.job.Durations;
import dev.skewer.core.job.Guarantee;
import dev.skewer.core.job.HoppingWindow;
import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import dev.skewer.core.job.SessionWindow;
import dev.skewer.core.job.TumblingWindow;
import dev.skewer.core.job.WindowSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A job file for a test, written as the YAML {@link JobSpecLoader} reads, so a test runs the job
 * exactly as a user's file would be loaded (and a test that starts processes can write {@link
 * #yaml()} to a file).
 *
 * <p>A test names the job and states only what differs from these defaults, the common job of the
 * integration tests:
 *
 * <ul>
 *   <li>topics {@code <name>.events} (4 partitions), {@code <name>.partials} (2 partitions), {@code
 *       <name>.results}, {@code <name>.late}, {@code <name>.dlq} ({@link #topicPrefix} changes
 *       {@code <name>}; {@link #defaultPartialsTopic} leaves {@code partials} to the loader's
 *       default, {@code skewer.<name>.partials});
 *   <li>input: key {@code /key}, time {@code /ts}, numeric field {@code value} at {@code /value},
 *       distinct count of {@code /user}, quantiles of {@code /value};
 *   <li>tumbling windows of 10 s; watermark delay 2 s, idle after 5 s, finalized after 6 s of
 *       idleness; allowed lateness 5 s;
 *   <li>output quantiles, {@code topK} and {@code guarantee}: the loader's defaults.
 * </ul>
 *
 * <p>Not thread-safe: a mutable builder, one per job. Setters refuse a missing value, windows are
 * checked by their records ({@link TumblingWindow}, …); every other check is the loader's, so a job
 * the loader refuses fails in {@link #spec()} with the loader's message.
 */
public final class JobYaml {

  public static final String DEFAULT_KEY_POINTER = "/key";
  public static final String DEFAULT_TIME_POINTER = "/ts";
  public static final String DEFAULT_DISTINCT_POINTER = "/user";
  public static final String DEFAULT_QUANTILE_POINTER = "/value";
  public static final WindowSpec DEFAULT_WINDOW = new TumblingWindow(Duration.ofSeconds(10));
  public static final Duration DEFAULT_DELAY = Duration.ofSeconds(2);
  public static final Duration DEFAULT_IDLE = Duration.ofSeconds(5);
  public static final Duration DEFAULT_FINALIZE_AFTER_IDLE = Duration.ofSeconds(6);
  public static final Duration DEFAULT_ALLOWED_LATENESS = Duration.ofSeconds(5);
  public static final int DEFAULT_EVENTS_PARTITIONS = 4;
  public static final int DEFAULT_PARTIALS_PARTITIONS = 2;

  private static final Pattern PLAIN = Pattern.compile("[A-Za-z_/][A-Za-z0-9_./-]*");
  private static final Set<String> YAML_WORDS =
      Set.of("true", "false", "yes", "no", "on", "off", "null", "y", "n");

  private final String name;
  private String topicPrefix;
  private boolean explicitPartials = true;
  private String keyPointer = DEFAULT_KEY_POINTER;
  private String timePointer = DEFAULT_TIME_POINTER;
  private final Map<String, String> numericFields = new LinkedHashMap<>(Map.of("value", "/value"));
  private String distinctPointer = DEFAULT_DISTINCT_POINTER;
  private String quantilePointer = DEFAULT_QUANTILE_POINTER;
  private WindowSpec window = DEFAULT_WINDOW;
  private Duration delay = DEFAULT_DELAY;
  private Duration idle = DEFAULT_IDLE;
  private Duration finalizeAfterIdle = DEFAULT_FINALIZE_AFTER_IDLE;
  private Duration allowedLateness = DEFAULT_ALLOWED_LATENESS;
  private List<Double> quantiles;
  private int eventsPartitions = DEFAULT_EVENTS_PARTITIONS;
  private int partialsPartitions = DEFAULT_PARTIALS_PARTITIONS;
  private Integer topK;
  private Guarantee guarantee;

  private JobYaml(String name) {
    this.name = text("name", name);
    this.topicPrefix = name;
  }

  /** The job {@code name} with every default; its topics are named after it. */
  public static JobYaml named(String name) {
    return new JobYaml(name);
  }

  /** Topics {@code <prefix>.events}, {@code <prefix>.results}, … instead of the job's name. */
  public JobYaml topicPrefix(String prefix) {
    this.topicPrefix = text("topicPrefix", prefix);
    return this;
  }

  /** Leaves {@code topics.partials} out: the loader's default {@code skewer.<name>.partials}. */
  public JobYaml defaultPartialsTopic() {
    this.explicitPartials = false;
    return this;
  }

  public JobYaml keyPointer(String pointer) {
    this.keyPointer = text("keyPointer", pointer);
    return this;
  }

  public JobYaml timePointer(String pointer) {
    this.timePointer = text("timePointer", pointer);
    return this;
  }

  /** Adds a numeric field (sum, min, max) after those already set. */
  public JobYaml numericField(String fieldName, String pointer) {
    numericFields.put(
        text("numericFields.name", fieldName), text("numericFields.pointer", pointer));
    return this;
  }

  /** No numeric fields (the default has {@code value} at {@code /value}). */
  public JobYaml noNumericFields() {
    numericFields.clear();
    return this;
  }

  public JobYaml distinctPointer(String pointer) {
    this.distinctPointer = text("distinctPointer", pointer);
    return this;
  }

  /** No distinct count. */
  public JobYaml noDistinct() {
    this.distinctPointer = null;
    return this;
  }

  public JobYaml quantilePointer(String pointer) {
    this.quantilePointer = text("quantilePointer", pointer);
    return this;
  }

  /** No quantile sketch. */
  public JobYaml noQuantile() {
    this.quantilePointer = null;
    return this;
  }

  /** Counts only: no numeric fields, no distinct count, no quantiles. */
  public JobYaml countsOnly() {
    return noNumericFields().noDistinct().noQuantile();
  }

  public JobYaml tumbling(Duration size) {
    return window(new TumblingWindow(size));
  }

  public JobYaml hopping(Duration size, Duration hop) {
    return window(new HoppingWindow(size, hop));
  }

  public JobYaml session(Duration gap) {
    return window(new SessionWindow(gap));
  }

  public JobYaml window(WindowSpec spec) {
    this.window = Objects.requireNonNull(spec, "window");
    return this;
  }

  /** {@code watermark.delay}. */
  public JobYaml delay(Duration d) {
    this.delay = duration("delay", d);
    return this;
  }

  /** {@code watermark.idle}. */
  public JobYaml idle(Duration d) {
    this.idle = duration("idle", d);
    return this;
  }

  /** {@code watermark.finalizeAfterIdle}. */
  public JobYaml finalizeAfterIdle(Duration d) {
    this.finalizeAfterIdle = duration("finalizeAfterIdle", d);
    return this;
  }

  /** Leaves {@code watermark.finalizeAfterIdle} out: idle partitions never close windows. */
  public JobYaml neverFinalize() {
    this.finalizeAfterIdle = null;
    return this;
  }

  public JobYaml allowedLateness(Duration d) {
    this.allowedLateness = duration("allowedLateness", d);
    return this;
  }

  /** {@code output.quantiles}; none at all with no argument. */
  public JobYaml quantiles(double... qs) {
    List<Double> list = new ArrayList<>();
    for (double q : qs) {
      list.add(q);
    }
    this.quantiles = List.copyOf(list);
    return this;
  }

  public JobYaml eventsPartitions(int n) {
    this.eventsPartitions = n;
    return this;
  }

  public JobYaml partialsPartitions(int n) {
    this.partialsPartitions = n;
    return this;
  }

  public JobYaml topK(int k) {
    this.topK = k;
    return this;
  }

  public JobYaml guarantee(Guarantee g) {
    this.guarantee = Objects.requireNonNull(g, "guarantee");
    return this;
  }

  /** The job's name. */
  public String name() {
    return name;
  }

  /** The job file. */
  public String yaml() {
    StringBuilder y = new StringBuilder();
    y.append("name: ").append(scalar(name)).append('\n');
    y.append("input:\n");
    y.append("  keyPointer: ").append(scalar(keyPointer)).append('\n');
    y.append("  timePointer: ").append(scalar(timePointer)).append('\n');
    if (!numericFields.isEmpty()) {
      y.append("  numericFields:\n");
      numericFields.forEach(
          (n, p) ->
              y.append("    - name: ")
                  .append(scalar(n))
                  .append("\n      pointer: ")
                  .append(scalar(p))
                  .append('\n'));
    }
    if (distinctPointer != null) {
      y.append("  distinctPointer: ").append(scalar(distinctPointer)).append('\n');
    }
    if (quantilePointer != null) {
      y.append("  quantilePointer: ").append(scalar(quantilePointer)).append('\n');
    }
    y.append("window:\n");
    if (window instanceof TumblingWindow t) {
      y.append("  type: tumbling\n  size: ").append(Durations.format(t.size())).append('\n');
    } else if (window instanceof HoppingWindow h) {
      y.append("  type: hopping\n  size: ").append(Durations.format(h.size())).append('\n');
      y.append("  hop: ").append(Durations.format(h.hop())).append('\n');
    } else if (window instanceof SessionWindow s) {
      y.append("  type: session\n  gap: ").append(Durations.format(s.gap())).append('\n');
    }
    y.append("watermark:\n");
    y.append("  delay: ").append(Durations.format(delay)).append('\n');
    y.append("  idle: ").append(Durations.format(idle)).append('\n');
    if (finalizeAfterIdle != null) {
      y.append("  finalizeAfterIdle: ").append(Durations.format(finalizeAfterIdle)).append('\n');
    }
    y.append("allowedLateness: ").append(Durations.format(allowedLateness)).append('\n');
    if (quantiles != null) {
      y.append("output:\n  quantiles: [");
      for (int i = 0; i < quantiles.size(); i++) {
        y.append(i == 0 ? "" : ", ").append(quantiles.get(i));
      }
      y.append("]\n");
    }
    y.append("topics:\n");
    y.append("  events: ").append(scalar(topicPrefix + ".events")).append('\n');
    y.append("  eventsPartitions: ").append(eventsPartitions).append('\n');
    if (explicitPartials) {
      y.append("  partials: ").append(scalar(topicPrefix + ".partials")).append('\n');
    }
    y.append("  partialsPartitions: ").append(partialsPartitions).append('\n');
    y.append("  results: ").append(scalar(topicPrefix + ".results")).append('\n');
    y.append("  late: ").append(scalar(topicPrefix + ".late")).append('\n');
    y.append("  dlq: ").append(scalar(topicPrefix + ".dlq")).append('\n');
    if (topK != null) {
      y.append("topK: ").append(topK).append('\n');
    }
    if (guarantee != null) {
      y.append("guarantee: ").append(guarantee.label()).append('\n');
    }
    return y.toString();
  }

  /** {@link #yaml()} loaded without environment overrides. */
  public JobSpec spec() {
    return parse(Map.of());
  }

  /** {@link #yaml()} loaded with the {@code SKEWER_*} overrides of {@code env}. */
  public JobSpec parse(Map<String, String> env) {
    return JobSpecLoader.parse(yaml(), env);
  }

  @Override
  public String toString() {
    return yaml();
  }

  private static String text(String field, String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(field + " must be non-blank, was '" + value + "'");
    }
    return value;
  }

  private static Duration duration(String field, Duration d) {
    if (d == null) {
      throw new IllegalArgumentException(field + " must not be null");
    }
    return d;
  }

  /** {@code s} as a YAML scalar: plain where YAML reads it back as that string, else quoted. */
  static String scalar(String s) {
    if (PLAIN.matcher(s).matches() && !YAML_WORDS.contains(s.toLowerCase(Locale.ROOT))) {
      return s;
    }
    return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
  }
}

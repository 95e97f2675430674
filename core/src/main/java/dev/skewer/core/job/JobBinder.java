package dev.skewer.core.job;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/** Binds the (YAML + env) tree to the job records, one section at a time, by hand. */
final class JobBinder {
  private JobBinder() {}

  static JobSpec bind(ObjectNode root) {
    Section s = new Section("", root, JobSpecLoader.SCHEMA.keySet());
    String name = s.string("name", null);
    InputSpec input = s.section("input", JobBinder::input);
    WindowSpec window = s.section("window", JobBinder::window);
    WatermarkSpec watermark = s.section("watermark", JobBinder::watermark);
    Duration lateness = s.duration("allowedLateness", JobSpec.DEFAULT_ALLOWED_LATENESS);
    SketchesSpec sketches = s.section("sketches", JobBinder::sketches);
    OutputSpec output = s.section("output", JobBinder::output);
    TopicsSpec topics = s.section("topics", t -> topics(t, name));
    int topK = s.integer("topK", JobSpec.DEFAULT_TOP_K);
    Guarantee guarantee = s.guarantee("guarantee", JobSpec.DEFAULT_GUARANTEE);
    return s.build(
        () ->
            new JobSpec(
                name, input, window, watermark, lateness, sketches, output, topics, topK,
                guarantee));
  }

  private static InputSpec input(Section s) {
    String key = s.string("keyPointer", null);
    String time = s.string("timePointer", null);
    TimeFormat format = s.timeFormat("timeFormat", InputSpec.DEFAULT_TIME_FORMAT);
    List<NumericField> numeric =
        s.list("numericFields", e -> e.named((n, p) -> new NumericField(n, p)));
    String distinct = s.string("distinctPointer", null);
    String quantile = s.string("quantilePointer", null);
    String frequency = s.string("frequencyPointer", null);
    int maxBytes = s.integer("maxRecordBytes", InputSpec.DEFAULT_MAX_RECORD_BYTES);
    String salt = s.string("saltSeparator", InputSpec.DEFAULT_SALT_SEPARATOR);
    List<Dimension> dims = s.list("dimensions", e -> e.named((n, p) -> new Dimension(n, p)));
    return s.build(
        () ->
            new InputSpec(
                key, time, format, numeric, distinct, quantile, frequency, maxBytes, salt, dims));
  }

  private static WindowSpec window(Section s) {
    String type = s.string("type", "tumbling").toLowerCase(Locale.ROOT);
    switch (type) {
      case "tumbling":
        {
          Duration size = s.duration("size", null);
          s.only(Set.of("type", "size"), type);
          return s.build(() -> new TumblingWindow(size));
        }
      case "hopping":
        {
          Duration size = s.duration("size", null);
          Duration hop = s.duration("hop", null);
          s.only(Set.of("type", "size", "hop"), type);
          return s.build(() -> new HoppingWindow(size, hop));
        }
      case "session":
        {
          Duration gap = s.duration("gap", null);
          s.only(Set.of("type", "gap"), type);
          return s.build(() -> new SessionWindow(gap));
        }
      default:
        throw new JobSpecException(
            s.path("type"), "must be one of tumbling, hopping, session, was '" + type + "'");
    }
  }

  private static WatermarkSpec watermark(Section s) {
    Duration delay = s.duration("delay", WatermarkSpec.DEFAULT_DELAY);
    Duration idle = s.duration("idle", WatermarkSpec.DEFAULT_IDLE);
    Duration skew = s.duration("maxFutureSkew", WatermarkSpec.DEFAULT_MAX_FUTURE_SKEW);
    Duration fin = s.duration("finalizeAfterIdle", WatermarkSpec.DEFAULT_FINALIZE_AFTER_IDLE);
    return s.build(() -> new WatermarkSpec(delay, idle, skew, fin));
  }

  private static SketchesSpec sketches(Section s) {
    int p = s.integer("hllPrecision", SketchesSpec.DEFAULT_HLL_PRECISION);
    int sp = s.integer("hllSparsePrecision", SketchesSpec.DEFAULT_HLL_SPARSE_PRECISION);
    double eps = s.decimal("cmsEpsilon", SketchesSpec.DEFAULT_CMS_EPSILON);
    double delta = s.decimal("cmsDelta", SketchesSpec.DEFAULT_CMS_DELTA);
    int cap = s.integer("heavyHitterCapacity", SketchesSpec.DEFAULT_HEAVY_HITTER_CAPACITY);
    double compression = s.decimal("tdigestCompression", SketchesSpec.DEFAULT_TDIGEST_COMPRESSION);
    return s.build(() -> new SketchesSpec(p, sp, eps, delta, cap, compression));
  }

  private static OutputSpec output(Section s) {
    String keyField = s.string("keyField", OutputSpec.DEFAULT_KEY_FIELD);
    List<Double> quantiles =
        s.has("quantiles") ? s.list("quantiles", e -> e.decimal()) : OutputSpec.DEFAULT_QUANTILES;
    int hh = s.integer("heavyHitters", OutputSpec.DEFAULT_HEAVY_HITTERS);
    String format = s.string("format", OutputSpec.DEFAULT_FORMAT);
    return s.build(() -> new OutputSpec(keyField, quantiles, hh, format));
  }

  /** {@code jobName} derives the default partials topic (null when the name is missing). */
  private static TopicsSpec topics(Section s, String jobName) {
    String events = s.string("events", TopicsSpec.DEFAULT_EVENTS);
    int eventsPartitions = s.integer("eventsPartitions", TopicsSpec.DEFAULT_EVENTS_PARTITIONS);
    // without a name the job fails on `name` (a placeholder keeps that the error reported)
    String partials =
        s.string(
            "partials",
            jobName == null || jobName.isBlank()
                ? "skewer.partials"
                : JobNames.of(jobName).partialsTopic());
    int partialsPartitions =
        s.integer("partialsPartitions", TopicsSpec.DEFAULT_PARTIALS_PARTITIONS);
    String results = s.string("results", TopicsSpec.DEFAULT_RESULTS);
    String late = s.string("late", TopicsSpec.DEFAULT_LATE);
    String dlq = s.string("dlq", TopicsSpec.DEFAULT_DLQ);
    int rf = s.integer("replicationFactor", TopicsSpec.DEFAULT_REPLICATION_FACTOR);
    if (rf < Short.MIN_VALUE || rf > Short.MAX_VALUE) {
      throw new JobSpecException(s.path("replicationFactor"), "must be in [1, 32], was " + rf);
    }
    return s.build(
        () ->
            new TopicsSpec(
                events,
                eventsPartitions,
                partials,
                partialsPartitions,
                results,
                late,
                dlq,
                (short) rf));
  }

  /** One mapping of the tree, with its path, reading fields by name and tracking unknown keys. */
  static final class Section {
    private final String path;
    private final ObjectNode node;
    private final Set<String> known;

    Section(String path, ObjectNode node, Set<String> known) {
      this.path = path;
      this.node = node;
      this.known = known;
      Iterator<String> names = node.fieldNames();
      while (names.hasNext()) {
        String n = names.next();
        if (!known.contains(n)) {
          throw new JobSpecException(
              path(n), "unknown field (known: " + String.join(", ", known) + ")");
        }
      }
    }

    String path(String field) {
      return path.isEmpty() ? field : path + "." + field;
    }

    boolean has(String field) {
      return value(field) != null;
    }

    /** Fails for a present field outside {@code allowed} (fields valid only for some variants). */
    void only(Set<String> allowed, String variant) {
      Iterator<String> names = node.fieldNames();
      while (names.hasNext()) {
        String n = names.next();
        if (!allowed.contains(n) && has(n)) {
          throw new JobSpecException(
              path(n),
              "not a field of "
                  + variant
                  + " windows (fields: "
                  + String.join(", ", new TreeSet<>(allowed))
                  + ")");
        }
      }
    }

    private JsonNode value(String field) {
      JsonNode v = node.get(field);
      return v == null || v.isNull() || v.isMissingNode() ? null : v;
    }

    <T> T build(Supplier<T> constructor) {
      try {
        return constructor.get();
      } catch (JobSpecException e) {
        throw path.isEmpty() ? e : e.under(path);
      }
    }

    @SuppressWarnings("unchecked")
    <T> T section(String field, Function<Section, T> binder) {
      JsonNode v = value(field);
      if (v == null) {
        return null;
      }
      if (!v.isObject()) {
        throw new JobSpecException(path(field), "must be a mapping, was " + describe(v));
      }
      Map<String, ?> schema = (Map<String, ?>) JobSpecLoader.SCHEMA.get(field);
      return binder.apply(new Section(path(field), (ObjectNode) v, schema.keySet()));
    }

    String string(String field, String def) {
      JsonNode v = value(field);
      if (v == null) {
        return def;
      }
      if (!v.isValueNode()) {
        throw new JobSpecException(path(field), "must be a string, was " + describe(v));
      }
      return v.asText();
    }

    int integer(String field, int def) {
      JsonNode v = value(field);
      return v == null ? def : new Element(path(field), v).integer();
    }

    double decimal(String field, double def) {
      JsonNode v = value(field);
      return v == null ? def : new Element(path(field), v).decimal();
    }

    Duration duration(String field, Duration def) {
      JsonNode v = value(field);
      return v == null ? def : new Element(path(field), v).duration();
    }

    Guarantee guarantee(String field, Guarantee def) {
      String t = string(field, null);
      return t == null ? def : Guarantee.parse(path(field), t);
    }

    TimeFormat timeFormat(String field, TimeFormat def) {
      String t = string(field, null);
      if (t == null) {
        return def;
      }
      String norm = t.trim().toUpperCase(Locale.ROOT).replace('-', '_');
      if (norm.equals("ISO8601") || norm.equals("ISO")) {
        norm = "ISO_8601";
      }
      try {
        return TimeFormat.valueOf(norm);
      } catch (IllegalArgumentException e) {
        throw new JobSpecException(
            path(field), "must be one of EPOCH_MS, ISO_8601, AUTO, was '" + t + "'");
      }
    }

    <T> List<T> list(String field, Function<Element, T> element) {
      JsonNode v = value(field);
      List<T> out = new ArrayList<>();
      if (v == null) {
        return out;
      }
      List<JsonNode> items = new ArrayList<>();
      if (v.isArray()) {
        v.forEach(items::add);
      } else if (v.isTextual()) {
        for (String part : v.asText().split(",")) {
          if (!part.isBlank()) {
            items.add(TextNode.valueOf(part.trim()));
          }
        }
      } else {
        throw new JobSpecException(path(field), "must be a list, was " + describe(v));
      }
      for (int i = 0; i < items.size(); i++) {
        String p = path(field) + "[" + i + "]";
        try {
          out.add(element.apply(new Element(p, items.get(i))));
        } catch (JobSpecException e) {
          throw e.path().startsWith(p) ? e : e.under(p);
        }
      }
      return out;
    }
  }

  /** One scalar (or list item) with its path. */
  static final class Element {
    private final String path;
    private final JsonNode v;

    Element(String path, JsonNode v) {
      this.path = path;
      this.v = v;
    }

    int integer() {
      if (v.isIntegralNumber() && v.canConvertToInt()) {
        return v.intValue();
      }
      if (v.isTextual()) {
        try {
          return Integer.parseInt(v.asText().trim());
        } catch (NumberFormatException e) {
          // fall through
        }
      }
      throw new JobSpecException(path, "must be an integer, was " + describe(v));
    }

    double decimal() {
      if (v.isNumber()) {
        return v.doubleValue();
      }
      if (v.isTextual()) {
        try {
          return Double.parseDouble(v.asText().trim());
        } catch (NumberFormatException e) {
          // fall through
        }
      }
      throw new JobSpecException(path, "must be a number, was " + describe(v));
    }

    Duration duration() {
      if (v.isTextual()) {
        try {
          return Durations.parse(v.asText());
        } catch (JobSpecException e) {
          throw new JobSpecException(path, e.problem());
        }
      }
      if (v.isIntegralNumber() && v.asLong() == 0) {
        return Duration.ZERO;
      }
      throw new JobSpecException(
          path, "expected a duration like 500ms, 10s, 2m, 1h or PT10S, was " + describe(v));
    }

    /** A {@code {name, pointer}} mapping, or a bare pointer string (name derived from it). */
    <T> T named(BiFunction<String, String, T> constructor) {
      String name;
      String pointer;
      if (v.isTextual()) {
        pointer = v.asText();
        Pointers.validate("pointer", pointer);
        name = Pointers.name(pointer);
      } else if (v.isObject()) {
        new Section(path, (ObjectNode) v, Set.of("name", "pointer"));
        JsonNode p = v.get("pointer");
        JsonNode n = v.get("name");
        pointer = p == null || p.isNull() ? null : p.asText();
        if (n == null || n.isNull()) {
          Pointers.validate("pointer", pointer);
          name = Pointers.name(pointer);
        } else {
          name = n.asText();
        }
      } else {
        throw new JobSpecException(
            path, "must be a pointer string or a mapping {name, pointer}, was " + describe(v));
      }
      return constructor.apply(name, pointer);
    }
  }

  static String describe(JsonNode v) {
    if (v.isTextual()) {
      return "'" + v.asText() + "'";
    }
    if (v.isValueNode()) {
      return v.asText();
    }
    return "a " + v.getNodeType().toString().toLowerCase(Locale.ROOT);
  }
}

package dev.skewer.core.job;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads a job file (YAML) plus environment overrides into a validated {@link JobSpec}.
 *
 * <p><b>Keys</b> are the record component names ({@code allowedLateness}, {@code
 * input.keyPointer}); unknown keys are errors, and so are duplicate keys. Durations are written
 * {@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h}, {@code 1d} or ISO-8601 ({@code PT10S}); a
 * bare {@code 0} is zero.
 *
 * <p><b>Environment overrides.</b> A variable {@code SKEWER_<PATH>} sets the field at {@code
 * <PATH>}: the field path's segments upper-cased and joined by {@code _}, camelCase split at each
 * capital ({@code watermark.delay} → {@code SKEWER_WATERMARK_DELAY}, {@code
 * topics.eventsPartitions} → {@code SKEWER_TOPICS_EVENTS_PARTITIONS}, {@code topK} → {@code
 * SKEWER_TOP_K}). Overrides are applied to the YAML tree before validation, so they obey the same
 * rules. Values are taken as text; {@code null} or an empty value unsets the field (its default
 * applies); a value starting with {@code [} or <code>{</code> is parsed as YAML flow ({@code [0.5,
 * 0.9]}, {@code [{name: v, pointer: /v}]}); a list field also accepts comma-separated text ({@code
 * 0.5,0.99}). A variable whose first segment names a job field ({@code SKEWER_WINDOW_…}) must name
 * an existing field, or loading fails; other {@code SKEWER_} variables belong to other components
 * and are ignored.
 */
public final class JobSpecLoader {

  /** The prefix of environment overrides. */
  public static final String ENV_PREFIX = "SKEWER_";

  private static final ObjectMapper YAML =
      new ObjectMapper(new YAMLFactory()).enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  /** The field tree: a null value is a leaf, a map a section. Order is the documented order. */
  static final Map<String, Map<String, ?>> SCHEMA = schema();

  private JobSpecLoader() {}

  /** Reads {@code yamlFile} and applies the {@code SKEWER_*} entries of {@code env}. */
  public static JobSpec load(Path yamlFile, Map<String, String> env) {
    String yaml;
    try {
      yaml = Files.readString(yamlFile, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new JobSpecException("", "job file " + yamlFile + " does not exist");
    } catch (IOException e) {
      throw new JobSpecException(
          "",
          "cannot read job file "
              + yamlFile
              + ": "
              + e.getClass().getSimpleName()
              + " "
              + e.getMessage());
    }
    return parse(yaml, env);
  }

  /** Parses {@code yaml} and applies the {@code SKEWER_*} entries of {@code env}. */
  public static JobSpec parse(String yaml, Map<String, String> env) {
    JsonNode root;
    try {
      root = YAML.readTree(yaml);
    } catch (JsonProcessingException e) {
      throw new JobSpecException(
          "",
          "not valid YAML: "
              + e.getOriginalMessage()
              + (e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr()));
    }
    if (root == null || root.isMissingNode() || root.isNull()) {
      root = JsonNodeFactory.instance.objectNode();
    }
    if (!root.isObject()) {
      throw new JobSpecException(
          "", "a job file must be a YAML mapping, was " + root.getNodeType());
    }
    ObjectNode tree = (ObjectNode) root;
    applyEnv(tree, env == null ? Map.of() : env);
    return JobBinder.bind(tree);
  }

  /**
   * Whether {@code variable} is in the job's override namespace: {@code SKEWER_} followed by a
   * segment that starts a job field's name ({@code SKEWER_WINDOW_…}, {@code SKEWER_TOPICS_…},
   * {@code SKEWER_TOP_…}). Such a variable must name a job field; other components must not use
   * these names for their own settings.
   */
  public static boolean isJobOverride(String variable) {
    if (!variable.startsWith(ENV_PREFIX)) {
      return false;
    }
    String first = variable.substring(ENV_PREFIX.length()).split("_", -1)[0];
    for (String field : SCHEMA.keySet()) {
      if (envName(field).split("_")[0].equals(first)) {
        return true;
      }
    }
    return false;
  }

  /** The field path an environment variable overrides, or null if it is not a job override. */
  static List<String> envPath(String variable) {
    if (!isJobOverride(variable)) {
      return null;
    }
    String[] tokens = variable.substring(ENV_PREFIX.length()).split("_", -1);
    List<String> path = resolve(SCHEMA, tokens, 0);
    if (path == null) {
      throw new JobSpecException(
          "", variable + ": names no job field (see docs/configuration.md for the mapping)");
    }
    return path;
  }

  /** {@code eventsPartitions} → {@code EVENTS_PARTITIONS}. */
  static String envName(String field) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < field.length(); i++) {
      char c = field.charAt(i);
      if (Character.isUpperCase(c) && i > 0) {
        sb.append('_');
      }
      sb.append(Character.toUpperCase(c));
    }
    return sb.toString();
  }

  @SuppressWarnings("unchecked")
  private static List<String> resolve(Map<String, ?> level, String[] tokens, int from) {
    for (Map.Entry<String, ?> e : level.entrySet()) {
      String[] fieldTokens = envName(e.getKey()).split("_");
      if (from + fieldTokens.length > tokens.length) {
        continue;
      }
      boolean match = true;
      for (int i = 0; i < fieldTokens.length && match; i++) {
        match = fieldTokens[i].equals(tokens[from + i]);
      }
      if (!match) {
        continue;
      }
      int next = from + fieldTokens.length;
      if (e.getValue() == null) {
        if (next == tokens.length) {
          return new ArrayList<>(List.of(e.getKey()));
        }
      } else if (next < tokens.length) {
        List<String> rest = resolve((Map<String, ?>) e.getValue(), tokens, next);
        if (rest != null) {
          rest.add(0, e.getKey());
          return rest;
        }
      }
    }
    return null;
  }

  private static void applyEnv(ObjectNode tree, Map<String, String> env) {
    for (Map.Entry<String, String> e : new TreeMap<>(env).entrySet()) {
      List<String> path = envPath(e.getKey());
      if (path == null) {
        continue;
      }
      ObjectNode node = tree;
      for (int i = 0; i < path.size() - 1; i++) {
        JsonNode child = node.get(path.get(i));
        if (!(child instanceof ObjectNode)) {
          child = node.putObject(path.get(i));
        }
        node = (ObjectNode) child;
      }
      node.set(path.get(path.size() - 1), envValue(e.getKey(), e.getValue()));
    }
  }

  private static JsonNode envValue(String variable, String raw) {
    String v = raw == null ? "" : raw.trim();
    if (v.isEmpty() || v.toLowerCase(Locale.ROOT).equals("null")) {
      return JsonNodeFactory.instance.nullNode();
    }
    if (v.startsWith("[") || v.startsWith("{")) {
      try {
        return YAML.readTree(v);
      } catch (JsonProcessingException e) {
        throw new JobSpecException(
            "", variable + ": not valid YAML flow syntax: " + e.getOriginalMessage());
      }
    }
    return TextNode.valueOf(v);
  }

  private static Map<String, Map<String, ?>> schema() {
    Map<String, Map<String, ?>> root = new LinkedHashMap<>();
    root.put("name", null);
    root.put(
        "input",
        section(
            "keyPointer",
            "timePointer",
            "timeFormat",
            "numericFields",
            "distinctPointer",
            "quantilePointer",
            "frequencyPointer",
            "maxRecordBytes",
            "saltSeparator",
            "dimensions"));
    root.put("window", section("type", "size", "hop", "gap"));
    root.put("watermark", section("delay", "idle", "maxFutureSkew", "finalizeAfterIdle"));
    root.put("allowedLateness", null);
    root.put(
        "sketches",
        section(
            "hllPrecision",
            "hllSparsePrecision",
            "cmsEpsilon",
            "cmsDelta",
            "heavyHitterCapacity",
            "tdigestCompression"));
    root.put("output", section("keyField", "quantiles", "heavyHitters", "format"));
    root.put(
        "topics",
        section(
            "events",
            "eventsPartitions",
            "partials",
            "partialsPartitions",
            "results",
            "late",
            "dlq",
            "replicationFactor"));
    root.put("topK", null);
    root.put("guarantee", null);
    return Collections.unmodifiableMap(root);
  }

  private static Map<String, ?> section(String... fields) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (String f : fields) {
      m.put(f, null);
    }
    return Collections.unmodifiableMap(m);
  }
}

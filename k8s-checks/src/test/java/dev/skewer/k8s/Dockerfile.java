package dev.skewer.k8s;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A Dockerfile read into its instructions: comments dropped, continuation lines joined, keywords
 * upper-cased. Only what the checks need: the instruction list, {@code ENV} and {@code ARG} values,
 * exec-form (JSON array) {@code ENTRYPOINT}/{@code CMD}/{@code RUN} and a {@code RUN}'s leading
 * flags ({@code --mount=...}).
 *
 * @param instructions keyword and the rest of the line, in order
 */
record Dockerfile(List<Instruction> instructions) {

  /** One instruction. */
  record Instruction(String keyword, String arguments) {}

  static Dockerfile read(Path file) {
    try {
      return parse(Files.readString(file, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Dockerfile parse(String text) {
    List<Instruction> instructions = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String raw : text.split("\n", -1)) {
      String line = raw.strip();
      if (current.length() == 0 && (line.isEmpty() || line.startsWith("#"))) {
        continue;
      }
      if (line.startsWith("#")) {
        continue; // a comment inside a continued instruction
      }
      if (line.endsWith("\\")) {
        current.append(line, 0, line.length() - 1).append(' ');
        continue;
      }
      current.append(line);
      String joined = current.toString().strip();
      current.setLength(0);
      int space = joined.indexOf(' ');
      instructions.add(
          new Instruction(
              (space < 0 ? joined : joined.substring(0, space)).toUpperCase(Locale.ROOT),
              space < 0 ? "" : joined.substring(space + 1).strip()));
    }
    if (current.length() > 0) {
      throw new IllegalArgumentException("the Dockerfile ends inside a continued line");
    }
    return new Dockerfile(List.copyOf(instructions));
  }

  List<Instruction> all(String keyword) {
    return instructions.stream().filter(i -> i.keyword().equals(keyword)).toList();
  }

  /** The last instruction of a kind (the one in force), or AssertionError. */
  Instruction last(String keyword) {
    List<Instruction> all = all(keyword);
    if (all.isEmpty()) {
      throw new AssertionError("the Dockerfile has no " + keyword);
    }
    return all.get(all.size() - 1);
  }

  /** {@code ENV k=v ...} (quoted values unquoted), in order; later ones win. */
  Map<String, String> env() {
    Map<String, String> env = new LinkedHashMap<>();
    for (Instruction i : all("ENV")) {
      env.putAll(assignments(i.arguments()));
    }
    return env;
  }

  /** {@code ARG name=default} defaults. */
  Map<String, String> args() {
    Map<String, String> args = new LinkedHashMap<>();
    for (Instruction i : all("ARG")) {
      args.putAll(assignments(i.arguments()));
    }
    return args;
  }

  /**
   * An exec-form instruction's array ({@code ENTRYPOINT ["java", ...]}); AssertionError if shell
   * form.
   */
  List<String> execForm(String keyword) {
    String json = Flagged.of(last(keyword).arguments()).rest();
    if (!json.startsWith("[")) {
      throw new AssertionError(keyword + " must be in exec form (a JSON array), was " + json);
    }
    try {
      return new ObjectMapper().readValue(json, new TypeReference<List<String>>() {});
    } catch (IOException e) {
      throw new AssertionError(keyword + " is not a JSON array of strings: " + json, e);
    }
  }

  /**
   * The leading {@code --name=value} flags of the last instruction of a kind ({@code RUN
   * --mount=type=bind,...}), as name → value.
   */
  Map<String, String> flags(String keyword) {
    return Flagged.of(last(keyword).arguments()).flags();
  }

  /**
   * A bind mount's {@code key=value} options ({@code type=bind,source=...,target=...}) of the last
   * instruction of a kind, or an empty map when it has none.
   */
  Map<String, String> mount(String keyword) {
    Map<String, String> options = new LinkedHashMap<>();
    String mount = flags(keyword).get("mount");
    if (mount != null) {
      for (String option : mount.split(",")) {
        int eq = option.indexOf('=');
        options.put(option.substring(0, eq), option.substring(eq + 1));
      }
    }
    return options;
  }

  /**
   * An instruction's arguments split into its leading {@code --name=value} flags (name → value,
   * {@code ""} for a bare flag) and the rest.
   */
  private record Flagged(Map<String, String> flags, String rest) {

    static Flagged of(String arguments) {
      Map<String, String> flags = new LinkedHashMap<>();
      String rest = arguments;
      while (rest.startsWith("--")) {
        int end = rest.indexOf(' ');
        String flag = end < 0 ? rest : rest.substring(0, end);
        int eq = flag.indexOf('=');
        flags.put(
            eq < 0 ? flag.substring(2) : flag.substring(2, eq),
            eq < 0 ? "" : flag.substring(eq + 1));
        rest = end < 0 ? "" : rest.substring(end + 1).strip();
      }
      return new Flagged(flags, rest);
    }
  }

  /** {@code ${NAME}} and {@code $NAME} replaced by the ARG defaults. */
  String expand(String text) {
    String out = text;
    for (Map.Entry<String, String> a : args().entrySet()) {
      out =
          out.replace("${" + a.getKey() + "}", a.getValue())
              .replace("$" + a.getKey(), a.getValue());
    }
    return out;
  }

  private static Map<String, String> assignments(String text) {
    Map<String, String> out = new LinkedHashMap<>();
    int i = 0;
    while (i < text.length()) {
      while (i < text.length() && text.charAt(i) == ' ') {
        i++;
      }
      int eq = text.indexOf('=', i);
      if (eq < 0) {
        break;
      }
      String key = text.substring(i, eq);
      int j = eq + 1;
      StringBuilder value = new StringBuilder();
      if (j < text.length() && text.charAt(j) == '"') {
        j++;
        while (j < text.length() && text.charAt(j) != '"') {
          value.append(text.charAt(j++));
        }
        j++;
      } else {
        while (j < text.length() && text.charAt(j) != ' ') {
          value.append(text.charAt(j++));
        }
      }
      out.put(key, value.toString());
      i = j;
    }
    return out;
  }
}

package dev.skewer.core.job;

import java.util.ArrayList;
import java.util.List;

/** JSON Pointer (RFC 6901) validation and splitting for the job's field mapping. */
public final class Pointers {
  private Pointers() {}

  /**
   * Checks that {@code pointer} is a non-empty RFC 6901 pointer ({@code /a/b}, escapes {@code ~0}
   * and {@code ~1}); throws {@link JobSpecException} naming {@code field}.
   */
  public static void validate(String field, String pointer) {
    if (pointer == null) {
      throw new JobSpecException(field, "is required");
    }
    if (pointer.isEmpty() || pointer.charAt(0) != '/') {
      throw new JobSpecException(
          field, "must be a JSON pointer starting with '/', like /user/id, was '" + pointer + "'");
    }
    for (int i = 0; i < pointer.length(); i++) {
      if (pointer.charAt(i) == '~') {
        char next = i + 1 < pointer.length() ? pointer.charAt(i + 1) : ' ';
        if (next != '0' && next != '1') {
          throw new JobSpecException(
              field, "'~' must be followed by 0 or 1 in a JSON pointer, was '" + pointer + "'");
        }
      }
    }
  }

  /** The unescaped reference tokens of a valid pointer: {@code /a~1b/c} → [a/b, c]. */
  public static List<String> segments(String pointer) {
    List<String> out = new ArrayList<>();
    int start = 1;
    while (true) {
      int slash = pointer.indexOf('/', start);
      String raw = slash < 0 ? pointer.substring(start) : pointer.substring(start, slash);
      out.add(raw.replace("~1", "/").replace("~0", "~"));
      if (slash < 0) {
        return out;
      }
      start = slash + 1;
    }
  }

  /**
   * A name for output fields derived from a pointer: its segments joined by {@code _}, with
   * characters other than letters, digits and {@code _} replaced by {@code _}: {@code /user/id} →
   * {@code user_id}.
   */
  public static String name(String pointer) {
    StringBuilder sb = new StringBuilder();
    for (String s : segments(pointer)) {
      if (sb.length() > 0) {
        sb.append('_');
      }
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        sb.append(Character.isLetterOrDigit(c) || c == '_' ? c : '_');
      }
    }
    return sb.toString();
  }
}

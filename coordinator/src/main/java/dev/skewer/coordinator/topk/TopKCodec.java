package dev.skewer.coordinator.topk;

import java.util.ArrayList;
import java.util.List;

/**
 * The text form of one published top-K list: {@code <windowEndMs>\n<count>\t<key>\n...}. Keys
 * containing a newline are escaped as {@code \\n} and backslashes as {@code \\\\}.
 */
final class TopKCodec {

  record Decoded(long windowEndMs, List<TopKEntry> entries) {}

  private TopKCodec() {}

  static String encode(long windowEndMs, List<TopKEntry> entries) {
    StringBuilder sb = new StringBuilder(16 + entries.size() * 24);
    sb.append(windowEndMs).append('\n');
    for (TopKEntry e : entries) {
      sb.append(e.count()).append('\t');
      String k = e.key();
      for (int i = 0; i < k.length(); i++) {
        char c = k.charAt(i);
        if (c == '\\') {
          sb.append("\\\\");
        } else if (c == '\n') {
          sb.append("\\n");
        } else {
          sb.append(c);
        }
      }
      sb.append('\n');
    }
    return sb.toString();
  }

  static Decoded decode(String s) {
    String[] lines = s.split("\n", -1);
    long end = Long.parseLong(lines[0]);
    List<TopKEntry> entries = new ArrayList<>(lines.length);
    for (int i = 1; i < lines.length; i++) {
      String line = lines[i];
      if (line.isEmpty()) {
        continue;
      }
      int tab = line.indexOf('\t');
      long count = Long.parseLong(line.substring(0, tab));
      String raw = line.substring(tab + 1);
      StringBuilder key = new StringBuilder(raw.length());
      for (int j = 0; j < raw.length(); j++) {
        char c = raw.charAt(j);
        if (c == '\\' && j + 1 < raw.length()) {
          char n = raw.charAt(++j);
          key.append(n == 'n' ? '\n' : n);
        } else {
          key.append(c);
        }
      }
      entries.add(new TopKEntry(key.toString(), count));
    }
    return new Decoded(end, entries);
  }
}

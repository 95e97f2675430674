package dev.skewer.core.hotkey;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a node measured on one source partition, for the coordinators' fanout policy: the
 * partition's event rate and its candidate hot keys with their rates. Nodes publish one per owned
 * partition every 500 ms (the job's Hazelcast map {@code skewer.<job>.hotkeys.reports}, {@link
 * dev.skewer.core.job.JobNames#hotKeyReportsMap()}, expiring), coordinators read them (and listen
 * for them, to salt a new hot key without waiting for their next round).
 *
 * @param partition the source partition
 * @param atMs when it was measured (wall clock)
 * @param eventsPerSecond the partition's event rate
 * @param candidates candidate key → events per second
 */
public record HotKeyReport(
    int partition, long atMs, double eventsPerSecond, Map<String, Double> candidates) {

  public HotKeyReport {
    candidates = Map.copyOf(candidates);
  }

  /** Text form: {@code partition\natMs\nrate\n(key\trate\n)*}; keys must not contain newlines. */
  public byte[] encode() {
    StringBuilder sb = new StringBuilder(64 + candidates.size() * 24);
    sb.append(partition)
        .append('\n')
        .append(atMs)
        .append('\n')
        .append(eventsPerSecond)
        .append('\n');
    candidates.forEach(
        (k, r) -> {
          if (k.indexOf('\n') < 0 && k.indexOf('\t') < 0) {
            sb.append(k).append('\t').append(r).append('\n');
          }
        });
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** Decodes {@link #encode}; throws IllegalArgumentException for malformed input. */
  public static HotKeyReport decode(byte[] bytes) {
    try {
      String[] lines = new String(bytes, StandardCharsets.UTF_8).split("\n");
      Map<String, Double> candidates = new LinkedHashMap<>();
      for (int i = 3; i < lines.length; i++) {
        int tab = lines[i].indexOf('\t');
        candidates.put(lines[i].substring(0, tab), Double.parseDouble(lines[i].substring(tab + 1)));
      }
      return new HotKeyReport(
          Integer.parseInt(lines[0]),
          Long.parseLong(lines[1]),
          Double.parseDouble(lines[2]),
          candidates);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("malformed hot-key report", e);
    }
  }

  /** Decodes every report, skipping malformed ones. */
  public static List<HotKeyReport> decodeAll(Iterable<byte[]> values) {
    List<HotKeyReport> out = new ArrayList<>();
    for (byte[] v : values) {
      try {
        out.add(decode(v));
      } catch (IllegalArgumentException ignored) {
        // a report from a newer or broken node: the exact counts still drive the policy
      }
    }
    return out;
  }
}

package dev.skewer.benchmarks.deployed;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * CPU seconds per thread group of a running JVM, from {@code jcmd <pid> Thread.print}: every Java
 * thread and the VM's own threads (GC, JIT compilers, VM thread) with the CPU time the OS charged
 * them ({@code cpu=...ms}) and their full names (Linux keeps only 15 characters of a thread name).
 * Threads that already ended are missing; the caller compares the sum with the process's total.
 *
 * <p>Groups: digit runs become {@code N} and a Hazelcast instance name ({@code hz.<name>.}) becomes
 * {@code hz.*.}, so {@code vert.x-eventloop-thread-3} and {@code GC Thread#1} fall into {@code
 * vert.x-eventloop-thread-N} and {@code GC Thread#N}.
 */
final class ThreadCpu {

  private static final Pattern THREAD = Pattern.compile("^\"(.*)\" .*\\bcpu=([0-9.]+)ms");
  private static final Pattern HZ_INSTANCE = Pattern.compile("^hz\\.[^.]+\\.");
  private static final Pattern DIGITS = Pattern.compile("[0-9]+");

  private ThreadCpu() {}

  /**
   * CPU seconds per thread group of {@code pid}, largest first; empty if {@code jcmd} fails (the
   * reason is printed).
   */
  static Map<String, Double> byGroup(long pid) {
    String dump = threadDump(pid);
    Map<String, Double> groups = new TreeMap<>();
    for (String line : dump.split("\n")) {
      Matcher m = THREAD.matcher(line);
      if (m.find()) {
        groups.merge(group(m.group(1)), Double.parseDouble(m.group(2)) / 1000.0, Double::sum);
      }
    }
    Map<String, Double> sorted = new LinkedHashMap<>();
    groups.entrySet().stream()
        .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
        .forEach(e -> sorted.put(e.getKey(), e.getValue()));
    return sorted;
  }

  /** The group of a thread name. */
  static String group(String threadName) {
    String name = HZ_INSTANCE.matcher(threadName).replaceFirst("hz.*.");
    return DIGITS.matcher(name).replaceAll("N");
  }

  private static String threadDump(long pid) {
    String dump = Jcmd.run(pid, "Thread.print");
    return dump == null ? "" : dump;
  }
}

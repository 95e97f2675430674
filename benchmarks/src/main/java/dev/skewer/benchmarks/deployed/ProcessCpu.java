package dev.skewer.benchmarks.deployed;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * CPU time a process has used so far (user + system, all its threads, including the JVM's own GC
 * and JIT threads), read from Linux's {@code /proc/<pid>/stat}.
 *
 * <p>Fields 14 ({@code utime}) and 15 ({@code stime}) are in clock ticks; Linux reports them in
 * units of {@code USER_HZ}, which is 100 on every mainstream architecture ({@code getconf
 * CLK_TCK}), so the resolution is 10 ms. The command name (field 2) may contain spaces and
 * parentheses, so fields are counted after its closing parenthesis.
 */
public final class ProcessCpu {

  /** {@code USER_HZ}: ticks per second of {@code /proc} CPU times. */
  static final long TICKS_PER_SECOND = 100;

  private ProcessCpu() {}

  /** CPU seconds used so far by {@code pid}; -1 if the process is gone. */
  public static double seconds(long pid) {
    return seconds(Path.of("/proc", Long.toString(pid), "stat"));
  }

  /** CPU seconds used so far by this JVM. */
  static double self() {
    return seconds(ProcessHandle.current().pid());
  }

  /** CPU seconds from a {@code stat} file of a process or a thread; -1 if it is gone. */
  static double seconds(Path statFile) {
    String stat;
    try {
      stat = Files.readString(statFile, StandardCharsets.US_ASCII);
    } catch (NoSuchFileException e) {
      return -1;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + statFile, e);
    }
    return ticks(stat) / (double) TICKS_PER_SECOND;
  }

  /** utime + stime of one {@code stat} line, in ticks. */
  static long ticks(String stat) {
    int close = stat.lastIndexOf(')');
    if (close < 0) {
      throw new IllegalArgumentException("not a /proc stat line: " + stat);
    }
    // after ") ": field 3 (state) is index 0, so utime (14) is index 11 and stime (15) index 12
    String[] f = stat.substring(close + 2).trim().split(" ");
    if (f.length < 13) {
      throw new IllegalArgumentException("too few fields in a /proc stat line: " + stat);
    }
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }

  /** Whether CPU times can be read here (Linux with /proc). */
  public static boolean available() {
    return Files.isReadable(Path.of("/proc/self/stat"));
  }
}

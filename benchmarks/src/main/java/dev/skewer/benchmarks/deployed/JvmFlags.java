package dev.skewer.benchmarks.deployed;

import java.util.Arrays;
import java.util.List;

/** A bench's JVM flags option ({@code --jvm-opts} and its kin): one string, space-separated. */
public final class JvmFlags {

  private JvmFlags() {}

  /** The flags as a list: split on whitespace, empty pieces dropped ("" is no flag at all). */
  public static List<String> split(String opts) {
    return Arrays.stream(opts.trim().split("\\s+")).filter(s -> !s.isEmpty()).toList();
  }
}

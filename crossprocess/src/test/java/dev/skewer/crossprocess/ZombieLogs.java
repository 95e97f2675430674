package dev.skewer.crossprocess;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Arrays;

/** What a child process logged after a point in time (its log's size then). */
final class ZombieLogs {

  private ZombieLogs() {}

  static long size(SkewerProcess p) {
    try {
      return Files.size(p.logFile());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String since(SkewerProcess p, long offset) {
    try {
      byte[] all = Files.readAllBytes(p.logFile());
      return new String(
          Arrays.copyOfRange(all, (int) Math.min(offset, all.length), all.length),
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

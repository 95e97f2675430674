package dev.skewer.core.result;

import dev.skewer.core.job.JobSpec;
import dev.skewer.sketches.Aggregate;

/** Formats results. (API first; body follows.) */
public final class ResultFormatter {
  public ResultFormatter(JobSpec job) {}

  public byte[] format(
      String key,
      long windowStartMs,
      long windowEndMs,
      Aggregate aggregate,
      int revision,
      String[] dimensions) {
    throw new UnsupportedOperationException("not yet");
  }

  /** The results-topic record key: {@code key + "@" + windowStartMs}. */
  public String resultKey(String key, long windowStartMs) {
    return key + "@" + windowStartMs;
  }
}

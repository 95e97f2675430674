package dev.skewer.reconcile.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.job.JobSpecLoader;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Measures what a reconciliation holds per (key, window) while it recomputes one key (the merge
 * phase holds one key at a time) and per event in the sort buffer; docs/reconcile.md quotes the
 * figures printed here. The bounds asserted are twice the measured values, so a regression that
 * doubles the footprint fails.
 */
class MemoryFootprintTest {

  private static final int WINDOWS = 20_000;
  private static final int EVENTS_PER_WINDOW = 20;

  private static JobSpec job(String extra) {
    return JobSpecLoader.parse(
        """
        name: m
        input:
          keyPointer: /key
          timePointer: /ts
          numericFields:
            - name: value
              pointer: /value
          %s
        window: {type: tumbling, size: 1m}
        """
            .formatted(extra),
        Map.of());
  }

  private static long usedHeap() {
    for (int i = 0; i < 4; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /** Heap held per window of one key, just before the key's results are composed. */
  private static double bytesPerWindow(JobSpec job) {
    Tally tally = new Tally(10);
    KeyReconciler keys = new KeyReconciler(job, 4, 0, Long.MAX_VALUE, 3, tally, null);
    SortRecord.Event e = new SortRecord.Event(1, 0);
    Random random = new Random(3);
    long before = usedHeap();
    keys.begin("ad42");
    long offset = 0;
    for (int w = 0; w < WINDOWS; w++) {
      for (int i = 0; i < EVENTS_PER_WINDOW; i++) {
        e.numeric[0] = random.nextInt(1000);
        e.distinct = "u" + random.nextInt(1_000_000);
        e.quantile = e.numeric[0];
        e.frequency = null;
        keys.event(0, offset++, w * 60_000L + i, e);
      }
    }
    long held = usedHeap() - before;
    keys.end();
    assertThat(tally.resultsExpected).isEqualTo(WINDOWS);
    return held / (double) WINDOWS;
  }

  @Test
  void shouldHoldAFewKilobytesPerWindowOfTheKeyBeingRecomputed() {
    double counts = bytesPerWindow(job(""));
    double sketches = bytesPerWindow(job("distinctPointer: /user\n  quantilePointer: /value"));
    System.err.printf(
        "per (key, window) held while recomputing a key: counts only %.0f B, with distinct and"
            + " quantiles (%d events per window) %.0f B%n",
        counts, EVENTS_PER_WINDOW, sketches);
    assertThat(counts).isLessThan(2 * 1_000);
    assertThat(sketches).isLessThan(2 * 4_100);
  }

  @Test
  void shouldBufferAboutAHundredBytesPerEvent() {
    SortRecord.Writer w = new SortRecord.Writer();
    byte[] r =
        w.event(
            "ad42",
            3,
            123_456_789L,
            1_700_000_000_000L,
            1_699_999_998_000L,
            new double[] {12.5},
            "user-123456",
            null,
            12.5,
            new String[0]);
    long bytes = r.length + ExternalSorter.OVERHEAD;
    System.err.printf("sort buffer per event (key ad42, 1 value, a user id): %d B%n", bytes);
    assertThat(bytes).isLessThan(120);
  }
}

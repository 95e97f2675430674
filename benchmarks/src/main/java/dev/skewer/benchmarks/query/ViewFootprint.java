package dev.skewer.benchmarks.query;

import dev.skewer.coordinator.query.ResultParser;
import dev.skewer.coordinator.query.ResultsView;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/**
 * Prints what the coordinator's query view holds per W1 result: the heap it really takes (measured:
 * the used heap after a full collection, before and after the view has read the results) beside the
 * view's own estimate, which its {@code --view-max-mb} bound counts, and the envelope's bytes. 4
 * windows of 50,000 keys, each result as the view reads it from the results topic. Run: {@code java
 * -Xmx1g -XX:+UseParallelGC -cp benchmarks/target/skewer-benchmarks.jar
 * dev.skewer.benchmarks.query.ViewFootprint}.
 */
public final class ViewFootprint {
  private static final int WINDOWS = 4;
  private static final int KEYS = 50_000;

  private ViewFootprint() {}

  public static void main(String[] args) throws InterruptedException {
    byte[][] envelopes = envelopes();
    long envelopeBytes = 0;
    for (byte[] e : envelopes) {
      envelopeBytes += e.length;
    }
    ResultParser parser = new ResultParser(new W1Results(1, 1).job);
    // measured with the envelopes already made (the view keeps the parsed bytes, not a copy), and
    // after formatting (which finishes the sketches' lazy work), so the difference is the view's
    long before = usedAfterCollection();
    ResultsView view = new ResultsView(Long.MAX_VALUE);
    for (byte[] e : envelopes) {
      view.add(parser.parse(e), 0, 0);
    }
    int n = envelopes.length;
    envelopes = null; // the view holds them now; the array's own references go
    long after = usedAfterCollection();
    double envelopeHeap = 16 + Math.ceil(envelopeBytes / (double) n / 8) * 8;
    System.out.printf(
        "%,d W1 results in the view, per result: %.0f heap bytes measured besides the envelope's"
            + " ~%.0f (%.0f bytes of JSON), %.0f in all; the view's estimate %.0f%n",
        n,
        (after - before) / (double) n + 4,
        envelopeHeap,
        envelopeBytes / (double) n,
        (after - before) / (double) n + 4 + envelopeHeap,
        view.bytes() / (double) n);
    System.out.printf(
        "the default bound (64 MiB) keeps ~%,d such results%n",
        (long) (64L * 1024 * 1024 / (view.bytes() / (double) n)));
    if (view.windows().size() != WINDOWS) {
      throw new IllegalStateException("the view lost a window");
    }
  }

  /**
   * W1 results of {@value #WINDOWS} windows of {@value #KEYS} keys each, as the topic holds them.
   */
  private static byte[][] envelopes() {
    W1Results results = new W1Results(KEYS, 1);
    byte[][] envelopes = new byte[WINDOWS * KEYS][];
    for (int w = 0; w < WINDOWS; w++) {
      for (int k = 0; k < KEYS; k++) {
        envelopes[w * KEYS + k] = results.envelope("ad" + k, W1Results.START + w * 10_000L, k);
      }
    }
    return envelopes;
  }

  private static long usedAfterCollection() throws InterruptedException {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(100);
      used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
    }
    return used;
  }
}

package dev.skewer.benchmarks.hotkey;

import dev.skewer.loadgen.workload.GeneratedEvent;
import dev.skewer.loadgen.workload.Workload;
import dev.skewer.loadgen.workload.WorkloadSpec;
import dev.skewer.node.hotkey.HotKeyDetector;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Nanoseconds per event of the node's hot-key detection ({@link HotKeyDetector#update}) on a
 * workload's keys, fed as the node feeds it: a poll's batch of one partition's events at one clock
 * reading. Each key is a fresh string, as a decoded event's is. {@code W1}: 100,000 keys Zipf 1.1;
 * {@code W2}: the same with one key at 50 %. {@link #candidates}: nanoseconds per {@link
 * HotKeyDetector#candidates} (once per partition and report tick) over a full window of the
 * workload at 100,000 events/s.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class DetectorBenchmark {
  private static final int EVENTS = 1 << 16;
  private static final int BATCH = 500;

  @Param({"W1", "W2"})
  public String workload;

  private String[] keys;
  private HotKeyDetector detector;
  private HotKeyDetector full;
  private long nowMs;

  @Setup
  public void setUp() {
    WorkloadSpec spec =
        workload.equals("W2") ? WorkloadSpec.w2(EVENTS, 1) : WorkloadSpec.w1(EVENTS, 1);
    Workload events = Workload.of(spec);
    keys = new String[EVENTS];
    for (int i = 0; i < EVENTS; i++) {
      GeneratedEvent e = events.next();
      keys[i] = e.key();
    }
    detector = new HotKeyDetector(HotKeyDetector.Config.defaults());
    full = new HotKeyDetector(HotKeyDetector.Config.defaults());
    for (int i = 0; i < 200_000; i++) { // 2 s at 100,000 events/s: every bucket of the window
      full.update(new String(keys[i & (EVENTS - 1)]), i / 100);
    }
  }

  /** One batch of {@value #BATCH} events; the clock moves 5 ms per batch (100,000 events/s). */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public HotKeyDetector batch() {
    int from = (int) ((nowMs / 5 * BATCH) & (EVENTS - 1));
    for (int i = 0; i < BATCH; i++) {
      detector.update(new String(keys[(from + i) & (EVENTS - 1)]), nowMs);
    }
    nowMs += 5;
    return detector;
  }

  /** The keys reported over the full window (the clock stays inside its last bucket). */
  @Benchmark
  public Object candidates() {
    return full.candidates(1_999);
  }
}

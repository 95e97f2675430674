package dev.skewer.benchmarks.event;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import dev.skewer.core.event.DecodedEvent;
import dev.skewer.core.event.DlqReason;
import dev.skewer.core.event.EventDecoder;
import dev.skewer.core.job.JobSpec;
import dev.skewer.launcher.cli.JobResources;
import dev.skewer.loadgen.workload.EventJson;
import dev.skewer.loadgen.workload.GeneratedEvent;
import dev.skewer.loadgen.workload.Workload;
import dev.skewer.loadgen.workload.WorkloadSpec;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Nanoseconds per {@link EventDecoder#decode} of a W1 event (examples/w1.yaml's fields), and, for
 * scale, per Jackson parser made over the same bytes and closed after its first token (what every
 * decode pays before it reads a field). {@code decodeW1EventAndFindItsKey} decodes W1's own events
 * (the generator's, seed 1: 100,000 keys, Zipf 1.1) and looks the key up in a map of every key, as
 * a node's aggregator does per event.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class DecodeBenchmark {
  private static final int EVENTS = 1 << 14;

  private static final int W1_EVENTS = 1 << 18;

  private byte[][] events;
  private byte[][] w1Events;
  private Map<String, Object> byKey;
  private EventDecoder decoder;
  private DecodedEvent event;
  private int i;

  @Setup
  public void setUp() {
    JobSpec job = JobResources.load("w1.yaml");
    decoder = new EventDecoder(job);
    event = DecodedEvent.forJob(job);
    Random r = new Random(1);
    events = new byte[EVENTS][];
    long t = 1_700_000_000_000L;
    for (int k = 0; k < EVENTS; k++) {
      t += r.nextInt(3);
      events[k] =
          EventJson.encode(
              "ad" + r.nextInt(1_000),
              "u" + r.nextInt(100_000),
              EventJson.round3(Math.exp(r.nextGaussian())),
              t);
    }
    Workload w1 = Workload.of(WorkloadSpec.w1(W1_EVENTS, 1));
    w1Events = new byte[W1_EVENTS][];
    byKey = new HashMap<>();
    for (int k = 0; k < W1_EVENTS; k++) {
      GeneratedEvent e = w1.next();
      w1Events[k] = e.json();
      byKey.put(e.key(), new Object());
    }
  }

  private static final JsonFactory FACTORY =
      JsonFactory.builder().enable(StreamReadFeature.USE_FAST_DOUBLE_PARSER).build();

  @Benchmark
  public JsonToken parserOnly() throws IOException {
    try (JsonParser p = FACTORY.createParser(events[i++ & (EVENTS - 1)])) {
      return p.nextToken();
    }
  }

  @Benchmark
  public DecodedEvent decodeW1Event() {
    DlqReason reason = decoder.decode(events[i++ & (EVENTS - 1)], event);
    if (reason != null) {
      throw new IllegalStateException("a W1 event went to the DLQ: " + reason);
    }
    return event;
  }

  @Benchmark
  public Object decodeW1EventAndFindItsKey() {
    DlqReason reason = decoder.decode(w1Events[i++ & (W1_EVENTS - 1)], event);
    if (reason != null) {
      throw new IllegalStateException("a W1 event went to the DLQ: " + reason);
    }
    return byKey.get(event.key());
  }
}

package dev.skewer.benchmarks.workload;

import dev.skewer.loadgen.workload.GeneratedEvent;
import dev.skewer.loadgen.workload.Workload;
import dev.skewer.loadgen.workload.WorkloadSpec;
import java.util.HashMap;
import java.util.Map;

/**
 * A workload generated once into flat arrays for the hot-key benchmark: canonical key and user
 * strings, value, event time and nominal (processing) time of each event.
 */
final class HotKeyEvents {
  final WorkloadSpec spec;
  final int n;
  final String[] key;
  final String[] user;
  final double[] value;
  final long[] eventTimeMs;
  final long[] nominalMs;

  private HotKeyEvents(WorkloadSpec spec) {
    this.spec = spec;
    this.n = Math.toIntExact(spec.events());
    key = new String[n];
    user = new String[n];
    value = new double[n];
    eventTimeMs = new long[n];
    nominalMs = new long[n];
  }

  static HotKeyEvents generate(WorkloadSpec spec) {
    HotKeyEvents e = new HotKeyEvents(spec);
    Map<String, String> strings = new HashMap<>(1 << 21);
    Workload w = Workload.of(spec);
    for (int i = 0; i < e.n; i++) {
      GeneratedEvent g = w.next();
      e.key[i] = strings.computeIfAbsent(g.key(), s -> s);
      e.user[i] = strings.computeIfAbsent(g.user(), s -> s);
      e.value[i] = g.value();
      e.eventTimeMs[i] = g.eventTimeMs();
      e.nominalMs[i] = spec.startMs() + i * 1000L / spec.eventsPerSecond();
    }
    return e;
  }
}

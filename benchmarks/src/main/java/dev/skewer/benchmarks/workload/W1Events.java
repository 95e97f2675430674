package dev.skewer.benchmarks.workload;

import dev.skewer.loadgen.partition.EventPartitioner;
import dev.skewer.loadgen.reference.ExactReference;
import dev.skewer.loadgen.workload.GeneratedEvent;
import dev.skewer.loadgen.workload.Workload;
import dev.skewer.loadgen.workload.WorkloadSpec;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongConsumer;

/**
 * W1 generated once into flat arrays (strings canonicalised: 100,000 keys and up to 1,000,000 users
 * are shared, not one String per event), with the brute-force reference of the same events, so
 * timed runs measure aggregation and nothing else.
 */
final class W1Events {
  final int n;
  final int[] partition;
  final String[] key;
  final String[] user;
  final double[] value;
  final long[] eventTimeMs;
  final byte[][] json; // null unless asked for
  final ExactReference reference;

  private W1Events(int n, boolean withJson) {
    this.n = n;
    partition = new int[n];
    key = new String[n];
    user = new String[n];
    value = new double[n];
    eventTimeMs = new long[n];
    json = withJson ? new byte[n][] : null;
    reference =
        ExactReference.of(Duration.ofSeconds(10), Duration.ofSeconds(2), Duration.ZERO, 4, null);
  }

  static W1Events generate(
      WorkloadSpec spec, int partitions, boolean withJson, LongConsumer progress) {
    if (spec.events() > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("too many events for in-memory arrays: " + spec.events());
    }
    W1Events e = new W1Events((int) spec.events(), withJson);
    Map<String, String> strings = new HashMap<>(2_000_000);
    Workload w = Workload.of(spec);
    for (int i = 0; i < e.n; i++) {
      GeneratedEvent g = w.next();
      e.reference.accept(g);
      e.key[i] = strings.computeIfAbsent(g.key(), s -> s);
      e.user[i] = strings.computeIfAbsent(g.user(), s -> s);
      e.value[i] = g.value();
      e.eventTimeMs[i] = g.eventTimeMs();
      e.partition[i] = EventPartitioner.partition(g.recordKey(), partitions);
      if (withJson) {
        e.json[i] = g.json();
      }
      if ((i & 0xFFFFF) == 0 && progress != null) {
        progress.accept(i);
      }
    }
    return e;
  }
}

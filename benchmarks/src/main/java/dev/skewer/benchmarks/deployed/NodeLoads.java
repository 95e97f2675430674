package dev.skewer.benchmarks.deployed;

import java.util.Map;
import java.util.TreeMap;

/**
 * Events processed per node process (e.g. each node's {@code skewer.events.in}), and the load
 * imbalance they show: the busiest node's count over the mean count, 1.0 when perfectly even.
 *
 * @param events node id → events, at least one node, none negative
 */
record NodeLoads(Map<String, Long> events) {

  NodeLoads {
    if (events == null || events.isEmpty()) {
      throw new IllegalArgumentException("events must name at least one node: " + events);
    }
    events.forEach(
        (node, n) -> {
          if (n == null || n < 0) {
            throw new IllegalArgumentException("events of " + node + " must be >= 0: " + n);
          }
        });
    events = Map.copyOf(new TreeMap<>(events));
  }

  long total() {
    return events.values().stream().mapToLong(Long::longValue).sum();
  }

  long max() {
    return events.values().stream().mapToLong(Long::longValue).max().orElseThrow();
  }

  double mean() {
    return total() / (double) events.size();
  }

  /** max / mean over the nodes; NaN when no node processed anything. */
  double maxOverMean() {
    long total = total();
    return total == 0 ? Double.NaN : max() * (double) events.size() / total;
  }

  /**
   * The events processed since {@code earlier}, per node: this minus earlier.
   *
   * @throws IllegalArgumentException when the nodes differ or a count went down
   */
  NodeLoads since(NodeLoads earlier) {
    if (!earlier.events.keySet().equals(events.keySet())) {
      throw new IllegalArgumentException(
          "nodes differ: " + earlier.events.keySet() + " then " + events.keySet());
    }
    Map<String, Long> delta = new TreeMap<>();
    events.forEach((node, n) -> delta.put(node, n - earlier.events.get(node)));
    return new NodeLoads(delta);
  }

  /** {@code node-1 123, node-2 456, ...} in node order. */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    new TreeMap<>(events)
        .forEach(
            (node, n) ->
                sb.append(sb.length() == 0 ? "" : ", ").append(node).append(' ').append(n));
    return sb.toString();
  }
}

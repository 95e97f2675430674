package dev.skewer.node.aggregate;

import dev.skewer.core.wire.Partial;

/** Receives the Partials a {@link PartitionAggregator} emits, in emission order. */
@FunctionalInterface
public interface PartialSink {
  void accept(Partial partial);
}

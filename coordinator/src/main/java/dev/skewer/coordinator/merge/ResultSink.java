package dev.skewer.coordinator.merge;

/** Receives the results a {@link WindowMerger} emits. */
@FunctionalInterface
public interface ResultSink {
  void accept(FinalResult result);
}

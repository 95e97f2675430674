package dev.skewer.core.checkpoint;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link CheckpointStore} inside one JVM (tests, single-process runs without Hazelcast). It keeps
 * no copy in Kafka: an {@code exactly_once} owner that finds it behind its committed offset cannot
 * read the committed checkpoint back (see {@link CheckpointStore#read}).
 */
public final class InMemoryCheckpointStore implements CheckpointStore {

  private final Map<String, Long> epochs = new ConcurrentHashMap<>();
  private final Map<String, Checkpoint> checkpoints = new ConcurrentHashMap<>();

  @Override
  public synchronized long nextEpoch(String id) {
    return epochs.merge(id, 1L, Long::sum);
  }

  @Override
  public long currentEpoch(String id) {
    return epochs.getOrDefault(id, 0L);
  }

  @Override
  public Optional<Checkpoint> load(String id) {
    return Optional.ofNullable(checkpoints.get(id));
  }

  @Override
  public synchronized Saved save(String id, Checkpoint checkpoint) {
    if (currentEpoch(id) > checkpoint.epoch()) {
      return Saved.REFUSED;
    }
    checkpoints.put(id, checkpoint);
    return Saved.UNLOGGED;
  }
}

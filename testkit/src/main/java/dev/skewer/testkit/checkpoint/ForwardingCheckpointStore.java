package dev.skewer.testkit.checkpoint;

import dev.skewer.core.checkpoint.Checkpoint;
import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.checkpoint.Saved;
import dev.skewer.core.checkpoint.TakenEpoch;
import java.util.Optional;

/**
 * A test store that hands a store's own operations — epochs, load, save — to another store, so a
 * test's store overrides only what it changes. The optional operations (copies in Kafka, {@code
 * cache}, {@code close}) keep the interface's defaults unless a subclass forwards them too.
 */
public abstract class ForwardingCheckpointStore implements CheckpointStore {

  protected final CheckpointStore delegate;

  protected ForwardingCheckpointStore(CheckpointStore delegate) {
    this.delegate = delegate;
  }

  @Override
  public long nextEpoch(String id) {
    return delegate.nextEpoch(id);
  }

  @Override
  public TakenEpoch takeEpoch(String id) {
    return delegate.takeEpoch(id);
  }

  @Override
  public long currentEpoch(String id) {
    return delegate.currentEpoch(id);
  }

  @Override
  public Optional<Checkpoint> load(String id) {
    return delegate.load(id);
  }

  @Override
  public Saved save(String id, Checkpoint checkpoint) {
    return delegate.save(id, checkpoint);
  }
}

package dev.skewer.stage;

import com.hazelcast.core.HazelcastInstance;
import dev.skewer.core.checkpoint.CheckpointStore;
import dev.skewer.core.frontier.Frontier;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;

/**
 * What a stage process hands its verticle: where meters go, the clock, the checkpoint store, the
 * Hazelcast member (null: none — no hot-key reports, no shared frontier) and the coordinators'
 * frontier.
 */
public record StageServices(
    MeterRegistry registry,
    Clock clock,
    CheckpointStore checkpoints,
    HazelcastInstance hazelcast,
    Frontier frontier) {

  public StageServices {
    if (registry == null || clock == null || checkpoints == null || frontier == null) {
      throw new IllegalArgumentException(
          "registry, clock, checkpoints and frontier must not be null");
    }
  }
}

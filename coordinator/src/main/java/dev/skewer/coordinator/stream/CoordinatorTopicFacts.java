package dev.skewer.coordinator.stream;

import dev.skewer.coordinator.CoordinatorSettings;
import dev.skewer.coordinator.hotkey.HotKeyPublisher;
import dev.skewer.stage.StageVerticle;
import java.time.Duration;
import org.apache.kafka.clients.admin.Admin;

/**
 * What a coordinator asks the broker before it starts: the events topic's partition count (the
 * source partitions each window waits for), with the hot-key topic checked — or created, when the
 * coordinator provisions — on the way when hot keys are on. It needs no Hazelcast member, so {@code
 * skewer coordinator} reads it while the member joins its cluster and hands it to {@link
 * dev.skewer.coordinator.CoordinatorRuntime.Startup#finish}; a coordinator given none reads it as
 * it starts.
 */
public record CoordinatorTopicFacts(int sourcePartitions) {

  private static final Duration HOT_KEY_TOPIC_TIMEOUT = Duration.ofSeconds(30);

  public CoordinatorTopicFacts {
    if (sourcePartitions < 1) {
      throw new IllegalArgumentException("sourcePartitions must be >= 1, was " + sourcePartitions);
    }
  }

  /**
   * Reads the facts through one admin client, checking or creating the hot-key topic (blocking; the
   * job's topics must exist).
   */
  public static CoordinatorTopicFacts read(CoordinatorSettings settings) {
    try (Admin admin = Admin.create(settings.kafka().adminConfig())) {
      int sources = StageVerticle.partitionsOf(admin, settings.job().topics().events());
      if (settings.hotKeys().enabled()) {
        HotKeyPublisher.ensureTopic(
            admin,
            settings.hotKeys().topic(),
            settings.job().topics().replicationFactor(),
            HOT_KEY_TOPIC_TIMEOUT,
            settings.provision());
      }
      return new CoordinatorTopicFacts(sources);
    }
  }
}

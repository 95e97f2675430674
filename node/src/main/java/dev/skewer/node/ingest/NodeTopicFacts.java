package dev.skewer.node.ingest;

import dev.skewer.core.job.TopicsSpec;
import dev.skewer.core.kafka.TopicProvisioner;
import dev.skewer.node.NodeSettings;
import dev.skewer.stage.StageVerticle;
import java.time.Duration;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a node asks the broker before it starts: the partials topic's partition count and the
 * largest record the DLQ and the late topic take (each topic's {@code max.message.bytes} capped by
 * the producer's {@code max.request.size}). It needs no Hazelcast member, so {@code skewer node}
 * reads it while the member joins its cluster and hands it to {@link
 * dev.skewer.node.NodeRuntime#start}; a node given none reads it as it starts.
 */
public record NodeTopicFacts(int partialsPartitions, int dlqRecordLimit, int lateRecordLimit) {

  private static final Logger LOG = LoggerFactory.getLogger(NodeTopicFacts.class);
  private static final Duration LIMIT_TIMEOUT = Duration.ofSeconds(10);

  public NodeTopicFacts {
    if (partialsPartitions < 1) {
      throw new IllegalArgumentException(
          "partialsPartitions must be >= 1, was " + partialsPartitions);
    }
  }

  /** Reads the facts through one admin client (blocking; the topics must exist). */
  public static NodeTopicFacts read(NodeSettings settings) {
    try (Admin admin = Admin.create(settings.kafka().adminConfig())) {
      int partials = StageVerticle.partitionsOf(admin, settings.job().topics().partials());
      int[] limits = readSideLimits(admin, settings);
      return new NodeTopicFacts(partials, limits[0], limits[1]);
    }
  }

  /**
   * The DLQ's and the late topic's record limits, in that order, through an admin client of its
   * own.
   */
  static int[] readSideLimits(NodeSettings settings) {
    try (Admin admin = Admin.create(settings.kafka().adminConfig())) {
      return readSideLimits(admin, settings);
    }
  }

  private static int[] readSideLimits(Admin admin, NodeSettings settings) {
    Object configured =
        settings.kafka().producerConfig().get(ProducerConfig.MAX_REQUEST_SIZE_CONFIG);
    int request = configured == null ? 1_048_576 : Integer.parseInt(configured.toString());
    TopicsSpec topics = settings.job().topics();
    return new int[] {
      Math.min(request, topicLimit(admin, settings, topics.dlq(), request)),
      Math.min(request, topicLimit(admin, settings, topics.late(), request))
    };
  }

  /** A topic's max.message.bytes; {@code fallback} (logged) when it cannot be described yet. */
  private static int topicLimit(Admin admin, NodeSettings settings, String topic, int fallback) {
    try {
      return TopicProvisioner.maxMessageBytes(admin, topic, LIMIT_TIMEOUT);
    } catch (KafkaException e) {
      LOG.warn(
          "node={} cannot read max.message.bytes of {} ({}); assuming {} until the next try",
          settings.nodeId(),
          topic,
          e.getMessage(),
          fallback);
      return fallback;
    }
  }
}

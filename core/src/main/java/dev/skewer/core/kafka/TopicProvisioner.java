package dev.skewer.core.kafka;

import dev.skewer.core.job.TopicsSpec;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;

/** Creates a job's topics. (API first; body follows.) */
public final class TopicProvisioner {
  private TopicProvisioner() {}

  public static void ensureTopics(Admin admin, TopicsSpec topics, Duration timeout) {
    ensureTopics(admin, topics, timeout, Map.of());
  }

  public static void ensureTopics(
      Admin admin, TopicsSpec topics, Duration timeout, Map<String, String> extraConfigs) {
    throw new UnsupportedOperationException("not yet");
  }
}

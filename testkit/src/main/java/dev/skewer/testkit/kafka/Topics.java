package dev.skewer.testkit.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;

/** Topic creation that returns only once every partition has a leader. Not public API. */
final class Topics {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private Topics() {}

  static void create(Admin admin, String name, int partitions, Map<String, String> configs) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("topic name must not be blank: '" + name + "'");
    }
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be >= 1: " + partitions);
    }
    NewTopic topic = new NewTopic(name, partitions, (short) 1).configs(Map.copyOf(configs));
    try {
      admin.createTopics(List.of(topic)).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      awaitLeaders(admin, name, partitions);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topic " + name, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot create topic " + name, e);
    }
  }

  private static void awaitLeaders(Admin admin, String name, int partitions)
      throws InterruptedException, TimeoutException {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      try {
        TopicDescription description =
            admin
                .describeTopics(List.of(name))
                .topicNameValues()
                .get(name)
                .get(5, TimeUnit.SECONDS);
        if (description.partitions().size() == partitions
            && description.partitions().stream().allMatch(p -> p.leader() != null)) {
          return;
        }
      } catch (ExecutionException e) {
        // metadata not propagated yet (UnknownTopicOrPartition): retry
      }
      Thread.sleep(20); // polling broker metadata: no event to wait on
    }
    throw new TimeoutException(
        "topic " + name + " has no leader for every partition in " + TIMEOUT);
  }
}

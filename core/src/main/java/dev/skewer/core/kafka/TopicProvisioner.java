package dev.skewer.core.kafka;

import dev.skewer.core.job.TopicsSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the topics of a job if they are missing. Idempotent and safe to run from several
 * processes at once (a concurrent creator's {@link TopicExistsException} is success).
 *
 * <p>Partitions: {@code events}, {@code late} and {@code dlq} get {@code eventsPartitions}; {@code
 * partials} and {@code results} get {@code partialsPartitions}. {@code results} is compacted
 * ({@code cleanup.policy=compact}): it is an upsert log keyed by {@code <key>@<windowStart>}. An
 * existing topic is left as it is; if its partition count differs from the job's, a WARN says so
 * (Skewer works with any count, but the job file and the cluster disagree).
 *
 * <p>Blocking: run it on a worker thread, never on an event loop.
 */
public final class TopicProvisioner {

  private static final long DESCRIBE_RETRY_MS = 50;
  private static final Logger LOG = LoggerFactory.getLogger(TopicProvisioner.class);

  private TopicProvisioner() {}

  /**
   * The partition count of an existing topic (blocking).
   *
   * @throws org.apache.kafka.common.KafkaException if the topic does not exist or the broker does
   *     not answer within {@code timeout}
   */
  public static int partitionCount(KafkaSettings kafka, String topic, Duration timeout) {
    try (Admin admin = Admin.create(kafka.adminConfig())) {
      return partitionCount(admin, topic, timeout);
    }
  }

  /** {@link #partitionCount(KafkaSettings, String, Duration)} through {@code admin}. */
  public static int partitionCount(Admin admin, String topic, Duration timeout) {
    try {
      return admin
          .describeTopics(List.of(topic))
          .allTopicNames()
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
          .get(topic)
          .partitions()
          .size();
    } catch (ExecutionException e) {
      throw new KafkaException(
          "cannot describe topic " + topic + ": " + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new KafkaException("cannot describe topic " + topic + " within " + timeout, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaException("interrupted describing " + topic, e);
    }
  }

  /**
   * The largest record batch the broker accepts on {@code topic}: its effective {@code
   * max.message.bytes} (the topic's own setting, else the broker's {@code message.max.bytes})
   * (blocking).
   *
   * @throws org.apache.kafka.common.KafkaException if the topic cannot be described within {@code
   *     timeout}
   */
  public static int maxMessageBytes(KafkaSettings kafka, String topic, Duration timeout) {
    try (Admin admin = Admin.create(kafka.adminConfig())) {
      return maxMessageBytes(admin, topic, timeout);
    }
  }

  /** {@link #maxMessageBytes(KafkaSettings, String, Duration)} through {@code admin}. */
  public static int maxMessageBytes(Admin admin, String topic, Duration timeout) {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    try {
      Config config =
          admin
              .describeConfigs(List.of(resource))
              .all()
              .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
              .get(resource);
      ConfigEntry entry = config.get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
      if (entry == null || entry.value() == null) {
        throw new KafkaException(
            "topic " + topic + " reports no " + TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
      }
      return Integer.parseInt(entry.value());
    } catch (ExecutionException e) {
      throw new KafkaException(
          "cannot describe the configuration of topic " + topic + ": " + e.getCause().getMessage(),
          e.getCause());
    } catch (TimeoutException e) {
      throw new KafkaException(
          "cannot describe the configuration of topic " + topic + " within " + timeout, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaException("interrupted describing " + topic, e);
    }
  }

  /** {@link #ensureTopics(Admin, TopicsSpec, Duration, Map)} with no extra configs. */
  public static void ensureTopics(Admin admin, TopicsSpec topics, Duration timeout) {
    ensureTopics(admin, topics, timeout, Map.of());
  }

  /**
   * Creates the missing topics of {@code topics}, waiting at most about {@code timeout} per step
   * (describe, create).
   *
   * @param extraConfigs topic configs applied to every created topic (e.g. {@code retention.ms=-1}
   *     for benchmarks whose event times lie in the past); {@code results} keeps {@code
   *     cleanup.policy=compact} unless {@code extraConfigs} overrides it
   * @throws KafkaException when Kafka fails or the timeout passes
   */
  public static void ensureTopics(
      Admin admin, TopicsSpec topics, Duration timeout, Map<String, String> extraConfigs) {
    Map<String, NewTopic> wanted = plan(topics, extraConfigs);
    int timeoutMs = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
    Map<String, KafkaFuture<TopicDescription>> described =
        admin
            .describeTopics(wanted.keySet(), new DescribeTopicsOptions().timeoutMs(timeoutMs))
            .topicNameValues();
    List<NewTopic> missing = new ArrayList<>();
    for (NewTopic topic : wanted.values()) {
      try {
        TopicDescription d = await(described.get(topic.name()), timeoutMs);
        checkPartitions(topic, d.partitions().size());
      } catch (ExecutionException e) {
        if (e.getCause() instanceof UnknownTopicOrPartitionException) {
          missing.add(topic);
        } else {
          throw failure("describing topic " + topic.name(), e.getCause());
        }
      }
    }
    if (missing.isEmpty()) {
      return;
    }
    Map<String, KafkaFuture<Void>> created =
        admin.createTopics(missing, new CreateTopicsOptions().timeoutMs(timeoutMs)).values();
    for (NewTopic topic : missing) {
      try {
        await(created.get(topic.name()), timeoutMs);
        LOG.info(
            "Created topic [{}] partitions=[{}] replicationFactor=[{}] configs={}",
            topic.name(),
            topic.numPartitions(),
            topic.replicationFactor(),
            topic.configs());
      } catch (ExecutionException e) {
        if (e.getCause() instanceof TopicExistsException) {
          LOG.info("Topic [{}] was created concurrently by another process", topic.name());
        } else {
          throw failure("creating topic " + topic.name(), e.getCause());
        }
      }
    }
    awaitDescribed(admin, missing.stream().map(NewTopic::name).toList(), timeoutMs);
  }

  /**
   * Waits, at most about {@code timeoutMs}, until the broker describes the topics just created: its
   * metadata follows the controller's a little later, and what runs next (a stage's partition
   * count, a listing) must find them.
   *
   * @throws KafkaException when one is still unknown after the timeout
   */
  private static void awaitDescribed(Admin admin, List<String> created, int timeoutMs) {
    long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    List<String> pending = unknownTopics(admin, created, timeoutMs);
    while (!pending.isEmpty()) {
      if (System.nanoTime() > deadlineNs) {
        throw new KafkaException(
            "topics "
                + pending
                + " were created, but the broker still does not know them after "
                + timeoutMs
                + " ms");
      }
      try {
        TimeUnit.MILLISECONDS.sleep(DESCRIBE_RETRY_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new KafkaException("interrupted waiting for the created topics " + pending, e);
      }
      pending = unknownTopics(admin, pending, timeoutMs);
    }
  }

  /**
   * The topics of {@code names} the broker does not know, in order.
   *
   * @throws KafkaException when describing fails otherwise
   */
  private static List<String> unknownTopics(Admin admin, List<String> names, int timeoutMs) {
    Map<String, KafkaFuture<TopicDescription>> described =
        admin
            .describeTopics(names, new DescribeTopicsOptions().timeoutMs(timeoutMs))
            .topicNameValues();
    List<String> unknown = new ArrayList<>();
    for (String topic : names) {
      try {
        await(described.get(topic), timeoutMs);
      } catch (ExecutionException e) {
        if (e.getCause() instanceof UnknownTopicOrPartitionException) {
          unknown.add(topic);
        } else {
          throw failure("describing topic " + topic, e.getCause());
        }
      }
    }
    return unknown;
  }

  /**
   * Checks that every topic of {@code topics} exists, creating nothing.
   *
   * @param what what the topics are, for the message
   * @throws MissingTopicException naming every missing topic
   * @throws KafkaException when Kafka fails or the timeout passes
   */
  public static void requireTopics(
      Admin admin, Collection<String> topics, Duration timeout, String what) {
    int timeoutMs = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
    List<String> missing =
        unknownTopics(admin, List.copyOf(new LinkedHashSet<>(topics)), timeoutMs);
    if (!missing.isEmpty()) {
      throw new MissingTopicException(missing, what);
    }
  }

  /** The topics {@link #ensureTopics} wants, by name, in a fixed order. */
  static Map<String, NewTopic> plan(TopicsSpec topics, Map<String, String> extraConfigs) {
    Map<String, NewTopic> wanted = new LinkedHashMap<>();
    short rf = topics.replicationFactor();
    Map<String, String> plain = new HashMap<>(extraConfigs);
    Map<String, String> compacted = new HashMap<>();
    compacted.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
    compacted.putAll(extraConfigs);
    wanted.put(
        topics.events(),
        new NewTopic(topics.events(), topics.eventsPartitions(), rf).configs(plain));
    wanted.put(
        topics.partials(),
        new NewTopic(topics.partials(), topics.partialsPartitions(), rf).configs(plain));
    wanted.put(
        topics.results(),
        new NewTopic(topics.results(), topics.partialsPartitions(), rf).configs(compacted));
    wanted.put(
        topics.late(), new NewTopic(topics.late(), topics.eventsPartitions(), rf).configs(plain));
    wanted.put(
        topics.dlq(), new NewTopic(topics.dlq(), topics.eventsPartitions(), rf).configs(plain));
    return wanted;
  }

  private static void checkPartitions(NewTopic wanted, int actual) {
    if (actual != wanted.numPartitions()) {
      LOG.warn(
          "Topic [{}] exists with {} partitions, the job says {}; leaving it as it is",
          wanted.name(),
          actual,
          wanted.numPartitions());
    }
  }

  private static <T> T await(KafkaFuture<T> future, int timeoutMs) throws ExecutionException {
    try {
      return future.get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaException("interrupted while provisioning topics", e);
    } catch (TimeoutException e) {
      throw new KafkaException("timed out after " + timeoutMs + " ms provisioning topics", e);
    }
  }

  private static KafkaException failure(String what, Throwable cause) {
    return new KafkaException(what + " failed: " + cause, cause);
  }
}

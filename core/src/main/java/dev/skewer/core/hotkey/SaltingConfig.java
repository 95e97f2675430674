package dev.skewer.core.hotkey;

import dev.skewer.core.job.JobNames;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.ConfigException;

/**
 * The producer properties {@link SaltingPartitioner} and {@link SaltingKeySerializer} read, and how
 * they find their table: an in-process {@link HotKeySource} under {@link #SOURCE_CONFIG}, or else a
 * {@link HotKeyFollower} of the job's hot-key topic on the producer's {@code bootstrap.servers},
 * shared by the partitioner and the serializer of one producer. The topic is {@link #TOPIC_CONFIG}
 * when set, else derived from the job name in {@link #JOB_CONFIG} ({@code skewer.<job>.hotkeys});
 * one of the two is required.
 */
public final class SaltingConfig {

  /** The compacted hot-key topic to follow; wins over {@link #JOB_CONFIG}. */
  public static final String TOPIC_CONFIG = "skewer.hotkeys.topic";

  /**
   * The job name (the job file's {@code name}): follow that job's topic {@code
   * skewer.<job>.hotkeys}.
   */
  public static final String JOB_CONFIG = "skewer.hotkeys.job";

  /** The salt separator. Default {@value SaltRouter#DEFAULT_SEPARATOR}. */
  public static final String SEPARATOR_CONFIG = "skewer.hotkeys.separator";

  /**
   * An in-process {@link HotKeySource} object (not a string): when present no consumer is started,
   * and the source is not closed with the producer.
   */
  public static final String SOURCE_CONFIG = "skewer.hotkeys.source";

  /** Prefix of extra settings for the follower's consumer ({@code skewer.hotkeys.consumer.*}). */
  public static final String CONSUMER_PREFIX = "skewer.hotkeys.consumer.";

  private SaltingConfig() {}

  static String topic(Map<String, ?> configs) {
    Object t = configs.get(TOPIC_CONFIG);
    if (t != null && !t.toString().isBlank()) {
      return t.toString();
    }
    Object job = configs.get(JOB_CONFIG);
    if (job != null && !job.toString().isBlank()) {
      return JobNames.of(job.toString()).hotKeysTopic();
    }
    throw new ConfigException(
        "SaltingPartitioner/SaltingKeySerializer need "
            + JOB_CONFIG
            + " (the job name) or "
            + TOPIC_CONFIG
            + " (the job's hot-key topic)");
  }

  static SaltRouter router(Map<String, ?> configs) {
    Object s = configs.get(SEPARATOR_CONFIG);
    return new SaltRouter(s == null ? SaltRouter.DEFAULT_SEPARATOR : s.toString());
  }

  /** The supplied source, or null. */
  static HotKeySource suppliedSource(Map<String, ?> configs) {
    Object s = configs.get(SOURCE_CONFIG);
    if (s == null) {
      return null;
    }
    if (!(s instanceof HotKeySource)) {
      throw new IllegalArgumentException(
          SOURCE_CONFIG
              + " must be a "
              + HotKeySource.class.getName()
              + " object, was "
              + s.getClass().getName());
    }
    return (HotKeySource) s;
  }

  /**
   * The follower's consumer settings: the producer's bootstrap servers, security settings ({@code
   * security.protocol}, {@code sasl.*}, {@code ssl.*}), client id with a {@code -hotkeys} suffix,
   * then every {@link #CONSUMER_PREFIX} setting.
   */
  static Map<String, Object> consumerConfig(Map<String, ?> configs) {
    Map<String, Object> c = new HashMap<>();
    for (Map.Entry<String, ?> e : configs.entrySet()) {
      String k = e.getKey();
      if (k.equals(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG)
          || k.equals(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG)
          || k.startsWith("sasl.")
          || k.startsWith("ssl.")) {
        c.put(k, e.getValue());
      }
    }
    Object clientId = configs.get(CommonClientConfigs.CLIENT_ID_CONFIG);
    c.put(
        ConsumerConfig.CLIENT_ID_CONFIG,
        (clientId == null || clientId.toString().isEmpty() ? "skewer" : clientId) + "-hotkeys");
    for (Map.Entry<String, ?> e : configs.entrySet()) {
      if (e.getKey().startsWith(CONSUMER_PREFIX)) {
        c.put(e.getKey().substring(CONSUMER_PREFIX.length()), e.getValue());
      }
    }
    return c;
  }
}

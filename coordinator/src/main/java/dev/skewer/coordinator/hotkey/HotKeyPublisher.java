package dev.skewer.coordinator.hotkey;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.skewer.core.hotkey.HotKey;
import dev.skewer.core.hotkey.HotKeyCodec;
import dev.skewer.core.hotkey.HotKeyTable;
import dev.skewer.core.kafka.MissingTopicException;
import dev.skewer.core.kafka.TopicProvisioner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the hot-key table: to the compacted topic (one record per changed key, a tombstone per
 * key that left the table; see {@link HotKeyCodec}) and, when a Hazelcast instance is given, to the
 * job's IMap ({@code skewer.<job>.hotkeys}, {@link dev.skewer.core.job.JobNames#hotKeysMap()}; key
 * → encoded value, removed when the key leaves).
 *
 * <p>Blocking: {@link #publish} returns once the broker acknowledged every record; run it off the
 * event loop. It publishes only the changes since the last successful publication, so calling it
 * with an unchanged table costs nothing; on failure it throws and the next call retries the same
 * changes. Thread-safe (publications are serialized).
 */
public final class HotKeyPublisher implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(HotKeyPublisher.class);

  public static final Duration DEFAULT_SEND_TIMEOUT = Duration.ofSeconds(30);

  private final Producer<byte[], byte[]> producer;
  private final boolean ownsProducer;
  private final String topic;
  private final HazelcastInstance hazelcast;
  private final String mapName;
  private static final int LOGGED_KEYS = 5;

  private HotKeyTable published = HotKeyTable.EMPTY;

  /**
   * @param producer sends the records (not closed by {@link #close})
   * @param topic the compacted hot-key topic
   * @param hazelcast where to mirror the table, or {@code null}
   * @param mapName the IMap mirroring the table (the job's {@code hotKeysMap()})
   */
  public HotKeyPublisher(
      Producer<byte[], byte[]> producer,
      String topic,
      HazelcastInstance hazelcast,
      String mapName) {
    this(producer, false, topic, hazelcast, mapName);
  }

  private HotKeyPublisher(
      Producer<byte[], byte[]> producer,
      boolean owns,
      String topic,
      HazelcastInstance hazelcast,
      String mapName) {
    if (producer == null) {
      throw new IllegalArgumentException("producer must not be null");
    }
    if (topic == null || topic.isBlank()) {
      throw new IllegalArgumentException("topic must not be blank: '" + topic + "'");
    }
    this.producer = producer;
    this.ownsProducer = owns;
    this.topic = topic;
    this.hazelcast = hazelcast;
    if (hazelcast != null && (mapName == null || mapName.isBlank())) {
      throw new IllegalArgumentException("mapName must not be blank: '" + mapName + "'");
    }
    this.mapName = mapName;
  }

  /** As the constructor, but {@link #close} also closes {@code producer}. */
  public static HotKeyPublisher owning(
      Producer<byte[], byte[]> producer,
      String topic,
      HazelcastInstance hazelcast,
      String mapName) {
    return new HotKeyPublisher(producer, true, topic, hazelcast, mapName);
  }

  /**
   * A publisher with its own idempotent producer on {@code bootstrap} (closed by {@link #close}).
   */
  public static HotKeyPublisher create(
      String bootstrap, String topic, HazelcastInstance hazelcast, String mapName) {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    config.put(ProducerConfig.CLIENT_ID_CONFIG, "skewer-hotkeys-publisher");
    return new HotKeyPublisher(new KafkaProducer<>(config), true, topic, hazelcast, mapName);
  }

  /**
   * Creates the compacted hot-key topic (one partition) unless it exists. Blocking.
   *
   * @param create false: only check that it exists ({@code --no-provision})
   * @throws MissingTopicException when it does not exist and {@code create} is false
   */
  public static void ensureTopic(
      Admin admin, String topic, short replicationFactor, Duration timeout, boolean create) {
    if (!create) {
      TopicProvisioner.requireTopics(admin, List.of(topic), timeout, "the hot-key topic");
      return;
    }
    NewTopic t =
        new NewTopic(topic, 1, replicationFactor)
            .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
    try {
      admin.createTopics(List.of(t)).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException("cannot create hot-key topic " + topic, e.getCause());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted creating hot-key topic " + topic, e);
    } catch (TimeoutException e) {
      throw new IllegalStateException("timed out creating hot-key topic " + topic, e);
    }
  }

  /**
   * Publishes what changed since the last successful publication; returns the changes (empty if
   * none). Blocks until acknowledged or {@link #DEFAULT_SEND_TIMEOUT}.
   *
   * @throws IllegalStateException when the broker did not acknowledge every record
   */
  public synchronized HotKeyTable.Changes publish(HotKeyTable table) {
    HotKeyTable.Changes changes = table.changesSince(published);
    if (changes.isEmpty()) {
      return changes;
    }
    List<Future<RecordMetadata>> sends = new ArrayList<>();
    for (HotKey h : changes.upserted()) {
      sends.add(
          producer.send(
              new ProducerRecord<>(
                  topic, HotKeyCodec.encodeKey(h.key()), HotKeyCodec.encodeValue(h))));
    }
    for (String key : changes.removed()) {
      sends.add(producer.send(new ProducerRecord<>(topic, HotKeyCodec.encodeKey(key), null)));
    }
    producer.flush();
    long deadline = System.nanoTime() + DEFAULT_SEND_TIMEOUT.toNanos();
    try {
      for (Future<RecordMetadata> f : sends) {
        f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "publishing hot keys to topic " + topic + " failed", e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("publishing hot keys to topic " + topic + " timed out", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted publishing hot keys to topic " + topic, e);
    }
    if (hazelcast != null) {
      IMap<String, byte[]> map = hazelcast.getMap(mapName);
      Map<String, byte[]> upserts = new HashMap<>();
      for (HotKey h : changes.upserted()) {
        upserts.put(h.key(), HotKeyCodec.encodeValue(h));
      }
      map.putAll(upserts);
      for (String key : changes.removed()) {
        map.delete(key);
      }
    }
    published = table;
    LOG.info(
        "published hot keys to topic=[{}]: {} upserted{}, {} removed, {} hot",
        topic,
        changes.upserted().size(),
        busiest(changes.upserted()),
        changes.removed().size(),
        table.size());
    return changes;
  }

  /**
   * Up to {@value #LOGGED_KEYS} of the keys with the largest fanouts, e.g. {@code " (ad0×8,
   * ad3×4)"}.
   */
  private static String busiest(List<HotKey> upserted) {
    if (upserted.isEmpty()) {
      return "";
    }
    List<HotKey> sorted = new ArrayList<>(upserted);
    sorted.sort(Comparator.comparingInt(HotKey::fanout).reversed().thenComparing(HotKey::key));
    StringBuilder sb = new StringBuilder(" (");
    for (int i = 0; i < Math.min(LOGGED_KEYS, sorted.size()); i++) {
      sb.append(i == 0 ? "" : ", ")
          .append(forLog(sorted.get(i).key()))
          .append('×')
          .append(sorted.get(i).fanout());
    }
    return sb.append(sorted.size() > LOGGED_KEYS ? ", ...)" : ")").toString();
  }

  /** A user's key as one short log token: at most 40 chars, control characters as '?'. */
  private static String forLog(String key) {
    String shown = key.length() > 40 ? key.substring(0, 40) + "..." : key;
    StringBuilder sb = new StringBuilder(shown.length());
    shown.codePoints().forEach(c -> sb.appendCodePoint(Character.isISOControl(c) ? '?' : c));
    return sb.toString();
  }

  /** The last table published successfully. */
  public synchronized HotKeyTable published() {
    return published;
  }

  /** The table mirrored in {@code hazelcast}'s map {@code mapName} (e.g. for the HTTP API). */
  public static HotKeyTable readHazelcast(HazelcastInstance hazelcast, String mapName) {
    IMap<String, byte[]> map = hazelcast.getMap(mapName);
    List<HotKey> entries = new ArrayList<>();
    Set<Map.Entry<String, byte[]>> all = map.entrySet();
    for (Map.Entry<String, byte[]> e : all) {
      entries.add(HotKeyCodec.decode(HotKeyCodec.encodeKey(e.getKey()), e.getValue()));
    }
    return HotKeyTable.of(entries);
  }

  @Override
  public void close() {
    if (ownsProducer) {
      producer.close(Duration.ofSeconds(10));
    }
  }
}

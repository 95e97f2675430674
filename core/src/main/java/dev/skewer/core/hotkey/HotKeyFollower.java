package dev.skewer.core.hotkey;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link HotKeySource} that follows the compacted hot-key topic: a daemon thread reads it from
 * the beginning with a plain {@link KafkaConsumer} (no group, no commits) and swaps in a new
 * immutable table after every poll that changed it. {@link #current} is a volatile read: senders
 * never wait for the broker.
 *
 * <p>Until the topic exists (it is never auto-created) the thread retries every second with the
 * empty table. A record that does not decode is logged at WARN and counted ({@link #badRecords}),
 * never applied. {@link #close} stops the thread and closes the consumer; it is idempotent.
 */
public final class HotKeyFollower implements HotKeySource, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(HotKeyFollower.class);

  static final Duration POLL_TIMEOUT = Duration.ofMillis(200);
  static final long RETRY_MS = 1_000;

  private final String topic;
  private final Map<String, Object> consumerConfig;
  private final Thread thread;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final AtomicLong tables = new AtomicLong();
  private final AtomicLong badRecords = new AtomicLong();
  private volatile HotKeyTable table = HotKeyTable.EMPTY;
  private volatile boolean running = true;
  private volatile KafkaConsumer<byte[], byte[]> consumer;

  private HotKeyFollower(Map<String, Object> consumerConfig, String topic) {
    this.topic = topic;
    this.consumerConfig = new HashMap<>(consumerConfig);
    this.consumerConfig.put(
        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    this.consumerConfig.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    this.consumerConfig.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    this.consumerConfig.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    this.consumerConfig.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    this.consumerConfig.remove(ConsumerConfig.GROUP_ID_CONFIG);
    this.thread = new Thread(this::loop, "skewer-hotkeys-" + topic);
    this.thread.setDaemon(true);
  }

  /**
   * Starts following {@code topic}.
   *
   * @param consumerConfig at least {@code bootstrap.servers}; security settings as needed.
   *     Deserializers, offsets, commits and the group are set here.
   */
  public static HotKeyFollower start(Map<String, Object> consumerConfig, String topic) {
    if (topic == null || topic.isBlank()) {
      throw new IllegalArgumentException("topic must not be blank: '" + topic + "'");
    }
    if (consumerConfig.get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG) == null) {
      throw new IllegalArgumentException("consumerConfig must contain bootstrap.servers");
    }
    HotKeyFollower follower = new HotKeyFollower(consumerConfig, topic);
    follower.thread.start();
    return follower;
  }

  @Override
  public HotKeyTable current() {
    return table;
  }

  public String topic() {
    return topic;
  }

  /** How many times a changed table was swapped in. */
  public long tables() {
    return tables.get();
  }

  /** How many records were skipped because they did not decode. */
  public long badRecords() {
    return badRecords.get();
  }

  private void loop() {
    Map<String, HotKey> entries = new HashMap<>();
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumerConfig)) {
      consumer = c;
      boolean assigned = false;
      while (running) {
        try {
          if (!assigned) {
            assigned = assign(c);
            if (!assigned) {
              stopped.await(RETRY_MS, TimeUnit.MILLISECONDS);
              continue;
            }
          }
          ConsumerRecords<byte[], byte[]> records = c.poll(POLL_TIMEOUT);
          if (!records.isEmpty() && apply(records, entries)) {
            table = HotKeyTable.of(entries.values());
            tables.incrementAndGet();
          }
        } catch (WakeupException e) {
          // close() was called; the loop condition ends it
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        } catch (RuntimeException e) {
          LOG.warn(
              "following hot-key topic=[{}] failed, retrying in {} ms: {}",
              topic,
              RETRY_MS,
              e.toString());
          try {
            stopped.await(RETRY_MS, TimeUnit.MILLISECONDS);
          } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            return;
          }
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("hot-key follower for topic=[{}] stopped: {}", topic, e.toString());
    }
  }

  private boolean assign(KafkaConsumer<byte[], byte[]> c) {
    List<PartitionInfo> infos = c.partitionsFor(topic, Duration.ofSeconds(5));
    if (infos == null || infos.isEmpty()) {
      return false;
    }
    List<TopicPartition> partitions = new ArrayList<>();
    for (PartitionInfo info : infos) {
      partitions.add(new TopicPartition(topic, info.partition()));
    }
    c.assign(partitions);
    c.seekToBeginning(partitions);
    LOG.info("following hot-key topic=[{}] ({} partitions)", topic, partitions.size());
    return true;
  }

  private boolean apply(ConsumerRecords<byte[], byte[]> records, Map<String, HotKey> entries) {
    boolean changed = false;
    for (ConsumerRecord<byte[], byte[]> r : records) {
      HotKey entry;
      String key;
      try {
        key = HotKeyCodec.decodeKey(r.key());
        entry = r.value() == null ? null : HotKeyCodec.decode(r.key(), r.value());
      } catch (HotKeyCodecException e) {
        if (badRecords.incrementAndGet() <= 10) {
          LOG.warn(
              "skipping hot-key record topic=[{}] partition=[{}] offset=[{}]: {}",
              r.topic(),
              r.partition(),
              r.offset(),
              e.getMessage());
        }
        continue;
      }
      if (entry == null) {
        changed |= entries.remove(key) != null;
      } else {
        changed |= !entry.equals(entries.put(key, entry));
      }
    }
    return changed;
  }

  @Override
  public void close() {
    if (!running) {
      return;
    }
    running = false;
    stopped.countDown();
    KafkaConsumer<byte[], byte[]> c = consumer;
    if (c != null) {
      c.wakeup();
    }
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

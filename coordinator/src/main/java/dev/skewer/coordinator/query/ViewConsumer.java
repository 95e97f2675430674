package dev.skewer.coordinator.query;

import dev.skewer.core.job.JobSpec;
import dev.skewer.core.kafka.KafkaSettings;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds a {@link ResultsView} and a {@link SideOutputStats} from the results, late and DLQ topics:
 * one consumer on its own thread, every partition assigned (no group, nothing committed), reading
 * committed records only. At start it reads the results topic from {@code history} ago (record
 * time) and the late and DLQ topics from their beginning (they are counted, not held); partitions
 * added later are read from their beginning.
 */
public final class ViewConsumer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ViewConsumer.class);
  private static final long METADATA_REFRESH_MS = 30_000;

  private final JobSpec job;
  private final KafkaSettings kafka;
  private final String clientId;
  private final ResultsView view;
  private final ResultParser parser;
  private final SideOutputStats side;
  private final Duration history;
  private final Clock clock;
  private final Thread thread;
  private final CountDownLatch caughtUp = new CountDownLatch(1);
  private volatile boolean stopping;
  private volatile KafkaConsumer<byte[], byte[]> consumer;
  private volatile long malformed;

  public ViewConsumer(
      JobSpec job,
      KafkaSettings kafka,
      String clientId,
      ResultsView view,
      SideOutputStats side,
      Duration history,
      Clock clock) {
    this.job = job;
    this.kafka = kafka;
    this.clientId = clientId;
    this.view = view;
    this.parser = new ResultParser(job);
    this.side = side;
    this.history = history;
    this.clock = clock;
    this.thread = new Thread(this::run, "skewer-query-view-" + clientId);
    this.thread.setDaemon(true);
  }

  /** Starts the consumer thread. */
  public ViewConsumer start() {
    thread.start();
    return this;
  }

  /** Waits until the records present at start have been read (for tests and start-up). */
  public boolean awaitCaughtUp(Duration timeout) throws InterruptedException {
    return caughtUp.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Records that were not result envelopes of this job. */
  public long malformed() {
    return malformed;
  }

  private void run() {
    Map<String, Object> config = new HashMap<>(kafka.consumerConfig(null));
    config.remove(ConsumerConfig.GROUP_ID_CONFIG);
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    config.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
    config.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
    config.putIfAbsent(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "50");
    long lastWarnMs = 0;
    while (!stopping) {
      try (KafkaConsumer<byte[], byte[]> c =
          new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
        consumer = c;
        if (stopping) {
          return;
        }
        Set<TopicPartition> assigned = new HashSet<>();
        Map<TopicPartition, Long> startEnd = assign(c, assigned, true);
        long nextRefresh = clock.millis() + METADATA_REFRESH_MS;
        while (!stopping) {
          ConsumerRecords<byte[], byte[]> records = c.poll(Duration.ofMillis(100));
          for (ConsumerRecord<byte[], byte[]> r : records) {
            apply(r);
          }
          if (startEnd != null && caughtUp(c, startEnd)) {
            startEnd = null;
            caughtUp.countDown();
            LOG.info(
                "query view caught up: {} windows, {} results read, {} late, {} DLQ",
                view.windows().size(),
                view.records(),
                side.late(),
                side.dlq());
          }
          if (clock.millis() >= nextRefresh) {
            assign(c, assigned, false);
            nextRefresh = clock.millis() + METADATA_REFRESH_MS;
          }
        }
      } catch (WakeupException e) {
        return;
      } catch (RuntimeException e) {
        if (stopping) {
          return;
        }
        long now = clock.millis();
        if (now - lastWarnMs > 30_000) {
          LOG.warn("query view consumer failed; restarting it in 1 s", e);
          lastWarnMs = now;
        }
        try {
          Thread.sleep(1_000); // back-off before reconnecting, not synchronisation
        } catch (InterruptedException ie) {
          return;
        }
      }
    }
  }

  private boolean caughtUp(KafkaConsumer<byte[], byte[]> c, Map<TopicPartition, Long> ends) {
    for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
      if (c.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  /**
   * Assigns the partitions not yet assigned. On the first call seeks as the class comment says and
   * returns the end offsets at that moment; later calls return null.
   */
  private Map<TopicPartition, Long> assign(
      KafkaConsumer<byte[], byte[]> c, Set<TopicPartition> assigned, boolean first) {
    List<TopicPartition> results = partitions(c, job.topics().results());
    List<TopicPartition> sides = new ArrayList<>(partitions(c, job.topics().late()));
    sides.addAll(partitions(c, job.topics().dlq()));
    List<TopicPartition> fresh = new ArrayList<>();
    for (TopicPartition tp : results) {
      if (!assigned.contains(tp)) {
        fresh.add(tp);
      }
    }
    for (TopicPartition tp : sides) {
      if (!assigned.contains(tp)) {
        fresh.add(tp);
      }
    }
    if (fresh.isEmpty()) {
      return first ? Map.of() : null;
    }
    assigned.addAll(fresh);
    c.assign(assigned);
    c.seekToBeginning(fresh);
    if (first) {
      long from = clock.millis() - history.toMillis();
      Map<TopicPartition, Long> query = new HashMap<>();
      for (TopicPartition tp : fresh) {
        if (tp.topic().equals(job.topics().results())) {
          query.put(tp, from);
        }
      }
      if (!query.isEmpty()) {
        Map<TopicPartition, OffsetAndTimestamp> found = c.offsetsForTimes(query);
        Map<TopicPartition, Long> ends = c.endOffsets(query.keySet());
        for (TopicPartition tp : query.keySet()) {
          OffsetAndTimestamp o = found.get(tp);
          c.seek(tp, o != null ? o.offset() : ends.get(tp));
        }
      }
      return new HashMap<>(c.endOffsets(fresh));
    }
    LOG.info("query view reads new partitions {}", fresh);
    return null;
  }

  private static List<TopicPartition> partitions(KafkaConsumer<byte[], byte[]> c, String topic) {
    List<TopicPartition> out = new ArrayList<>();
    List<PartitionInfo> infos = c.partitionsFor(topic);
    if (infos != null) {
      for (PartitionInfo p : infos) {
        out.add(new TopicPartition(topic, p.partition()));
      }
    }
    return out;
  }

  private void apply(ConsumerRecord<byte[], byte[]> r) {
    String topic = r.topic();
    if (topic.equals(job.topics().results())) {
      if (r.value() == null) {
        return; // a tombstone: nothing the view holds is removed by the upsert log
      }
      StoredResult result;
      try {
        result = parser.parse(r.value());
      } catch (IllegalArgumentException e) {
        malformed++;
        return;
      }
      view.add(result, clock.millis(), r.timestamp());
    } else if (topic.equals(job.topics().late())) {
      side.onLate(r.value(), r.headers(), r.timestamp());
    } else if (topic.equals(job.topics().dlq())) {
      side.onDlq(r.headers(), r.timestamp());
    }
  }

  @Override
  public void close() {
    stopping = true;
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
